import Foundation
import Settee
import Testing

/// Map/reduce views through the library: saved with `saveView`, queried with `ViewQuery`,
/// rows decoded as Swift types. They need JavaScriptCore (skipped without it; the test
/// below checks the error there is then).
@Suite(.enabled(if: Database.isJavaScriptAvailable, "needs JavaScriptCore"))
struct ViewQueryTests {
    static let byPriority = "function (doc) { if (doc.text) emit(doc.priority, doc.text); }"
    static let byTag = "function (doc) { (doc.tags || []).forEach(function (t) { emit([t, doc.priority], 1); }); }"

    /// Four notes: a(1, [x]), b(2, [x, y]), c(2, [y]), d(3, []).
    func seeded(_ data: DataDirectory) async throws -> Database {
        let notes = try await data.database("notes")
        let results = try await notes.saveAll([
            DocumentChange(id: "a", value: Note(text: "A", priority: 1, tags: ["x"])),
            DocumentChange(id: "b", value: Note(text: "B", priority: 2, tags: ["x", "y"])),
            DocumentChange(id: "c", value: Note(text: "C", priority: 2, tags: ["y"])),
            DocumentChange(id: "d", value: Note(text: "D", priority: 3)),
        ])
        #expect(results.allSatisfy { (try? $0.get()) != nil })
        try await notes.saveView("byPriority", design: "notes", map: Self.byPriority)
        try await notes.saveView("byTag", design: "notes", map: Self.byTag, reduce: "_count")
        return notes
    }

    @Test func mapRowsComeInKeyOrderWithTheirOptions() async throws {
        try await withDataDirectory { data in
            let notes = try await seeded(data)
            func rows(_ query: ViewQuery) async throws -> [String] {
                try await notes.queryView("byPriority", design: "notes", query, key: Int.self, value: String.self)
                    .rows.map(\.value)
            }
            let all = try await notes.queryView("byPriority", design: "notes", key: Int.self, value: String.self)
            #expect(all.totalRows == 4 && all.offset == 0)
            #expect(all.rows.map(\.key) == [1, 2, 2, 3] && all.rows.map(\.id) == ["a", "b", "c", "d"])
            #expect(try await rows(ViewQuery(key: 2)) == ["B", "C"])
            #expect(try await rows(ViewQuery(keys: [3, 1])) == ["D", "A"])
            #expect(try await rows(ViewQuery(startKey: 2, endKey: 3)) == ["B", "C", "D"])
            var exclusive = ViewQuery(startKey: 2, endKey: 3)
            exclusive.inclusiveEnd = false
            #expect(try await rows(exclusive) == ["B", "C"])
            #expect(try await rows(ViewQuery(limit: 2, skip: 1)) == ["B", "C"])
            #expect(try await rows(ViewQuery(startKey: 2, descending: true)) == ["C", "B", "A"])
            let skipped = try await notes.queryView("byPriority", design: "notes", ViewQuery(skip: 3),
                                                    key: Int.self, value: String.self)
            #expect(skipped.offset == 3 && skipped.rows.map(\.id) == ["d"])
        }
    }

    @Test func includeDocsCarriesTypedDocuments() async throws {
        try await withDataDirectory { data in
            let notes = try await seeded(data)
            let page = try await notes.queryView("byPriority", design: "notes", ViewQuery(key: 3, includeDocs: true),
                                                 key: Int.self, value: String.self)
            let document = try #require(try page.rows.first?.document(Note.self))
            #expect(document.id == "d" && document.value == Note(text: "D", priority: 3))
            #expect(document.revision.hasPrefix("1-"))
            let plain = try await notes.queryView("byPriority", design: "notes", key: Int.self, value: String.self)
            #expect(try plain.rows[0].document(Note.self) == nil)
        }
    }

    @Test func reducesGroupsAndGroupLevels() async throws {
        try await withDataDirectory { data in
            let notes = try await seeded(data)
            let total = try await notes.queryView("byTag", design: "notes", key: ViewKey.self, value: Int.self)
            #expect(total.rows.count == 1 && total.rows[0].value == 4 && total.rows[0].key == nil && total.rows[0].id == nil)
            let perTag = try await notes.queryView("byTag", design: "notes", ViewQuery(groupLevel: 1),
                                                   key: [String].self, value: Int.self)
            #expect(perTag.rows.map(\.key) == [["x"], ["y"]] && perTag.rows.map(\.value) == [2, 2])
            let exact = try await notes.queryView("byTag", design: "notes", ViewQuery(group: true),
                                                  key: ViewKey.self, value: Int.self)
            #expect(exact.rows.map(\.key) == [["x", 1], ["x", 2], ["y", 2]] && exact.rows.map(\.value) == [1, 1, 2])
            let ranged = try await notes.queryView("byTag", design: "notes",
                                                   ViewQuery(startKey: ["y"], endKey: ["y", [:]]),
                                                   key: ViewKey.self, value: Int.self)
            #expect(ranged.rows.map(\.value) == [2])
            let mapped = try await notes.queryView("byTag", design: "notes", ViewQuery(reduce: false),
                                                   key: ViewKey.self, value: Int.self)
            #expect(mapped.rows.count == 4 && mapped.totalRows == 4)
        }
    }

    @Test func aWriteIsSeenByTheNextQuery() async throws {
        try await withDataDirectory { data in
            let notes = try await seeded(data)
            #expect(try await notes.queryView("byPriority", design: "notes", key: Int.self, value: String.self).rows.count == 4)
            _ = try await notes.save(Note(text: "E", priority: 0), id: "e")
            let after = try await notes.queryView("byPriority", design: "notes", key: Int.self, value: String.self)
            #expect(after.rows.first?.id == "e" && after.totalRows == 5)
        }
    }

    @Test func badQueriesAreTypedErrors() async throws {
        try await withDataDirectory { data in
            let notes = try await seeded(data)
            await #expect(throws: SetteeError.notFound(id: "_design/nope", reason: "missing")) {
                try await notes.queryView("byPriority", design: "nope", key: Int.self, value: String.self)
            }
            await #expect(throws: SetteeError.notFound(id: "_design/notes", reason: "missing_named_view")) {
                try await notes.queryView("nope", design: "notes", key: Int.self, value: String.self)
            }
            await #expect(throws: SetteeError.invalidQuery(error: "query_parse_error",
                                                           reason: "Reduce is invalid for map-only views.")) {
                try await notes.queryView("byPriority", design: "notes", ViewQuery(reduce: true),
                                          key: Int.self, value: String.self)
            }
            await #expect(throws: SetteeError.invalidQuery(error: "query_parse_error",
                                                           reason: "`include_docs` is invalid for reduce")) {
                try await notes.queryView("byTag", design: "notes", ViewQuery(includeDocs: true),
                                          key: ViewKey.self, value: Int.self)
            }
            // A key that is not what the caller said it is.
            await #expect(throws: SetteeError.self) {
                try await notes.queryView("byPriority", design: "notes", key: String.self, value: String.self)
            }
            try await notes.saveView("broken", design: "notes", map: Self.byPriority,
                                     reduce: "function (keys, values) { throw new Error('no'); }")
            do {
                _ = try await notes.queryView("broken", design: "notes", key: ViewKey.self, value: Int.self)
                Issue.record("a throwing reduce answered")
            } catch SetteeError.designFunction(let error, _) {
                #expect(error == "reduce_error")
            }
            await #expect(throws: SetteeError.self) {
                try await notes.saveView("bad", design: "notes", map: "function (doc) { emit(")
            }
            #expect(try await notes.queryView("byPriority", design: "notes", key: Int.self, value: String.self).rows.count == 4)
        }
    }

    @Test func saveViewKeepsTheDesignDocumentsOtherViews() async throws {
        try await withDataDirectory { data in
            let notes = try await seeded(data)
            let rev = try await notes.saveView("byPriority", design: "notes",
                                               map: "function (doc) { emit(-doc.priority, doc.text); }")
            #expect(rev.hasPrefix("3-"))
            let reversed = try await notes.queryView("byPriority", design: "notes", key: Int.self, value: String.self)
            #expect(reversed.rows.map(\.value) == ["D", "B", "C", "A"])
            #expect(try await notes.queryView("byTag", design: "notes", key: ViewKey.self, value: Int.self).rows[0].value == 4)
        }
    }
}
