import Foundation
import Settee
import Testing

@Suite struct DatabaseTests {
    @Test func savesReadsUpdatesAndDeletesATypedDocument() async throws {
        try await withDataDirectory { data in
            let notes = try await data.database("notes")
            let saved = try await notes.save(Note(text: "first"), id: "n1")
            #expect(saved.revision.hasPrefix("1-"))
            var read = try #require(try await notes.document(Note.self, id: "n1"))
            #expect(read.value == Note(text: "first") && read.revision == saved.revision)
            read.value.text = "second"
            let updated = try await notes.save(read)
            #expect(updated.revision.hasPrefix("2-"))
            #expect(try await notes.document(Note.self, id: "n1")?.value.text == "second")
            let tombstone = try await notes.delete(id: "n1", revision: updated.revision)
            #expect(tombstone.hasPrefix("3-"))
            #expect(try await notes.document(Note.self, id: "n1") == nil)
            let generated = try await notes.save(Note(text: "no id"))
            #expect(!generated.id.isEmpty)
        }
    }

    @Test func aStaleRevisionIsAConflictNamingTheCurrentOneAndWritesNothing() async throws {
        try await withDataDirectory { data in
            let notes = try await data.database("notes")
            let first = try await notes.save(Note(text: "a"), id: "n1")
            let second = try await notes.save(Note(text: "b"), id: "n1", revision: first.revision)
            let before = try await notes.info().updateSequence
            await #expect(throws: SetteeError.conflict(id: "n1", currentRevision: second.revision)) {
                try await notes.save(Note(text: "stale"), id: "n1", revision: first.revision)
            }
            await #expect(throws: SetteeError.conflict(id: "n1", currentRevision: second.revision)) {
                try await notes.save(Note(text: "no base"), id: "n1")
            }
            await #expect(throws: SetteeError.conflict(id: "n1", currentRevision: second.revision)) {
                try await notes.delete(id: "n1", revision: first.revision)
            }
            #expect(try await notes.info().updateSequence == before)
            #expect(try await notes.document(Note.self, id: "n1")?.value.text == "b")
        }
    }

    @Test func badInputIsATypedErrorAndWritesNothing() async throws {
        var options = DataDirectory.Options()
        options.maxDocumentSize = 1_000
        try await withDataDirectory(options: options) { data in
            let notes = try await data.database("notes")
            await #expect(throws: SetteeError.self) { try await notes.save(Note(text: "x"), id: "_bad") }
            await #expect(throws: SetteeError.documentTooLarge(id: "big", limit: 1_000)) {
                try await notes.save(Note(text: String(repeating: "x", count: 2_000)), id: "big")
            }
            await #expect(throws: SetteeError.self) { try await notes.save(42, id: "number") }
            await #expect(throws: SetteeError.invalidRevision("nope")) {
                try await notes.save(Note(text: "x"), id: "n", revision: "nope")
            }
            await #expect(throws: SetteeError.notFound(id: "ghost", reason: "missing")) {
                try await notes.delete(id: "ghost", revision: "1-abc")
            }
            await #expect(throws: SetteeError.invalidDatabaseName("Bad Name")) { try await data.database("Bad Name") }
            #expect(try await notes.info().updateSequence == 0)
        }
    }

    @Test func aBulkSaveFailsPerDocument() async throws {
        try await withDataDirectory { data in
            let notes = try await data.database("notes")
            let existing = try await notes.save(Note(text: "old"), id: "b")
            let results = try await notes.saveAll([
                DocumentChange(id: "a", value: Note(text: "new a")),
                DocumentChange(id: "b", value: Note(text: "conflicting b")),
                DocumentChange(id: "c", value: Note(text: "new c")),
            ])
            #expect(results.count == 3)
            #expect((try? results[0].get())?.id == "a")
            #expect(throws: SetteeError.conflict(id: "b", currentRevision: existing.revision)) { try results[1].get() }
            #expect((try? results[2].get())?.id == "c")
            #expect(try await notes.info().documentCount == 3)
        }
    }

    @Test func attachmentsAreStoredReadAndKeptAcrossSaves() async throws {
        try await withDataDirectory { data in
            let notes = try await data.database("notes")
            let saved = try await notes.save(Note(text: "with a picture"), id: "n1")
            let bytes = Data((0..<5_000).map { UInt8($0 % 251) })
            let rev = try await notes.putAttachment(bytes, named: "photo.bin", contentType: "image/png",
                                                    documentID: "n1", revision: saved.revision)
            #expect(try await notes.attachment(named: "photo.bin", documentID: "n1") == bytes)
            let edited = try await notes.save(Note(text: "edited"), id: "n1", revision: rev)
            #expect(try await notes.attachment(named: "photo.bin", documentID: "n1") == bytes)
            #expect(try await notes.attachmentNames(documentID: "n1") == ["photo.bin": "image/png"])
            _ = try await notes.removeAttachment(named: "photo.bin", documentID: "n1", revision: edited.revision)
            #expect(try await notes.attachment(named: "photo.bin", documentID: "n1") == nil)
            await #expect(throws: SetteeError.self) {
                try await notes.putAttachment(bytes, named: "x", documentID: "n1", revision: saved.revision)
            }
        }
    }
}
