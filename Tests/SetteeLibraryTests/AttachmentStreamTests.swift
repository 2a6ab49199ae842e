import Foundation
import Settee
import Testing

/// Attachments from and to files, and as an `AsyncSequence` of pieces.
@Suite struct AttachmentStreamTests {
    /// `count` bytes of a pattern no compressor shrinks much, written to a fresh file.
    func file(_ scratch: ScratchDirectory, _ name: String, count: Int) throws -> (URL, Data) {
        try FileManager.default.createDirectory(atPath: scratch.path, withIntermediateDirectories: true)
        let bytes = Data([UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            for index in 0..<count { buffer[index] = UInt8(truncatingIfNeeded: (index &* 2_654_435_761) >> 13) }
            initialized = count
        })
        let url = URL(fileURLWithPath: scratch.path).appendingPathComponent(name)
        try bytes.write(to: url)
        return (url, bytes)
    }

    @Test func aFileGoesInAndComesOutInPieces() async throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let (input, bytes) = try file(scratch, "in.bin", count: 3_000_000)
        try await withDataDirectory { data in
            let photos = try await data.database("photos")
            let saved = try await photos.save(Note(text: "a photo"), id: "p1")
            let rev = try await photos.putAttachment(contentsOf: input, named: "full.jpg", contentType: "image/jpeg",
                                                     documentID: "p1", revision: saved.revision)
            #expect(rev.hasPrefix("2-"))
            #expect(try await photos.attachmentNames(documentID: "p1") == ["full.jpg": "image/jpeg"])

            let stream = try await photos.attachmentStream(named: "full.jpg", documentID: "p1")
            #expect(stream.length == 3_000_000 && stream.contentType == "image/jpeg")
            var pieces: [Int] = []
            var read = Data()
            for try await piece in stream {
                pieces.append(piece.count)
                read.append(piece)
            }
            #expect(read == bytes)
            // Streamed, not read whole: many pieces, none of them large.
            #expect(pieces.count > 3 && (pieces.max() ?? .max) <= 1_048_576)

            let output = URL(fileURLWithPath: scratch.path).appendingPathComponent("out.bin")
            #expect(try await photos.writeAttachment(named: "full.jpg", documentID: "p1", to: output) == 3_000_000)
            #expect(try Data(contentsOf: output) == bytes)
            // Only the file itself is left beside the input (no temporary file).
            #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted() == ["in.bin", "out.bin"])
            // The document's body is kept.
            #expect(try await photos.document(Note.self, id: "p1")?.value.text == "a photo")
        }
    }

    @Test func anAsyncSequenceOfPiecesIsStoredAsItArrives() async throws {
        try await withDataDirectory { data in
            let notes = try await data.database("notes")
            let pieces = (0..<5).map { index in Data(repeating: UInt8(index), count: 200_000) }
            let source = AsyncStream<Data> { continuation in
                for piece in pieces { continuation.yield(piece) }
                continuation.finish()
            }
            let rev = try await notes.putAttachment(source, named: "log.txt", contentType: "text/plain",
                                                    documentID: "new", revision: nil)
            #expect(rev.hasPrefix("1-"))
            // A compressible type is stored gzip'd and read back as it was sent.
            #expect(try await notes.attachment(named: "log.txt", documentID: "new") == pieces.reduce(Data(), +))
        }
    }

    @Test func failuresAreTypedAndWriteNothing() async throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        try await withDataDirectory { data in
            let notes = try await data.database("notes")
            let saved = try await notes.save(Note(text: "x"), id: "n1")
            let missingFile = URL(fileURLWithPath: scratch.path).appendingPathComponent("nope.bin")
            await #expect(throws: SetteeError.io(operation: "open", path: missingFile.path, errno: ENOENT)) {
                try await notes.putAttachment(contentsOf: missingFile, named: "a", documentID: "n1", revision: saved.revision)
            }
            struct Broken: Error {}
            let failing = AsyncThrowingStream<Data, any Error> { continuation in
                continuation.yield(Data(repeating: 1, count: 300_000))
                continuation.finish(throwing: Broken())
            }
            await #expect(throws: SetteeError.self) {
                try await notes.putAttachment(failing, named: "a", documentID: "n1", revision: saved.revision)
            }
            let (input, _) = try file(scratch, "in.bin", count: 10)
            await #expect(throws: SetteeError.conflict(id: "n1", currentRevision: saved.revision)) {
                try await notes.putAttachment(contentsOf: input, named: "a", documentID: "n1", revision: "1-abc")
            }
            #expect(try await notes.info().updateSequence == 1)
            await #expect(throws: SetteeError.notFound(id: "n1", reason: "missing attachment a")) {
                try await notes.attachmentStream(named: "a", documentID: "n1")
            }
            await #expect(throws: SetteeError.notFound(id: "ghost", reason: "missing")) {
                try await notes.writeAttachment(named: "a", documentID: "ghost", to: missingFile)
            }
            #expect(!FileManager.default.fileExists(atPath: missingFile.path))
        }
    }

    @Test func cancellingTheReaderEndsTheSequence() async throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let (input, _) = try file(scratch, "in.bin", count: 2_000_000)
        try await withDataDirectory { data in
            let notes = try await data.database("notes")
            _ = try await notes.putAttachment(contentsOf: input, named: "big", documentID: "d", revision: nil)
            let stream = try await notes.attachmentStream(named: "big", documentID: "d")
            let (firstPiece, firstPieceRead) = AsyncStream<Void>.makeStream()
            let (proceed, proceedNow) = AsyncStream<Void>.makeStream()
            let reader = Task {
                var total = 0
                for try await piece in stream {
                    if total == 0 {
                        firstPieceRead.yield()
                        for await _ in proceed {}  // until the test has cancelled this task
                    }
                    total += piece.count
                }
                return total
            }
            var waiter = firstPiece.makeAsyncIterator()
            _ = await waiter.next()
            reader.cancel()
            proceedNow.finish()
            let total = try await within(.seconds(10)) { try await reader.value }
            #expect(total > 0 && total < 2_000_000)
        }
    }
}
