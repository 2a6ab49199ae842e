import Settee
import Testing

@Suite struct QueryTests {
    /// Notes 0..<20 with priority = number, tagged "even" or "odd".
    static func fill(_ notes: Database) async throws {
        let changes = (0..<20).map { number in
            DocumentChange(id: "n\(number)", value: Note(text: "note \(number)", priority: number,
                                                         tags: [number % 2 == 0 ? "even" : "odd"]))
        }
        for result in try await notes.saveAll(changes) { _ = try result.get() }
    }

    @Test func aTypedSelectorWithSortLimitAndBookmarkPages() async throws {
        try await withDataDirectory { data in
            let notes = try await data.database("notes")
            try await Self.fill(notes)
            let index = try await notes.createIndex([.ascending("priority")], name: "by-priority")
            #expect(index.isNew && index.name == "by-priority" && index.designDocument.hasPrefix("_design/"))
            #expect(try await notes.createIndex([.ascending("priority")], name: "by-priority").isNew == false)
            var query = Query(Selector.field("priority") >= 5 && Selector.field("tags").contains("odd"),
                              sort: [.ascending("priority")], limit: 3)
            let first = try await notes.find(Note.self, query)
            #expect(first.documents.map(\.value.priority) == [5, 7, 9])
            #expect(first.documents.allSatisfy { $0.revision.hasPrefix("1-") })
            query.bookmark = first.bookmark
            let second = try await notes.find(Note.self, query)
            #expect(second.documents.map(\.value.priority) == [11, 13, 15])
        }
    }

    @Test func rawJSONSelectorsAndOperators() async throws {
        try await withDataDirectory { data in
            let notes = try await data.database("notes")
            try await Self.fill(notes)
            let raw = try Selector(json: #"{"priority": {"$in": [1, 2, 3]}}"#)
            let page = try await notes.find(Note.self, Query(raw, limit: 100))
            #expect(Set(page.documents.map(\.id)) == ["n1", "n2", "n3"])
            let negated = try await notes.find(Note.self, Query(!(Selector.field("priority") < 18), limit: 100))
            #expect(Set(page.documents.map(\.id)).isDisjoint(with: negated.documents.map(\.id)))
            #expect(Set(negated.documents.map(\.value.priority)) == [18, 19])
            let either = Selector.field("priority") == 0 || Selector.field("text").matches(regex: "^note 1[89]$")
            #expect(Set(try await notes.find(Note.self, Query(either)).documents.map(\.id)) == ["n0", "n18", "n19"])
            #expect(try await notes.find(Note.self, Query(.all, limit: 100)).documents.count == 20)
        }
    }

    @Test func badQueriesAreTypedErrors() async throws {
        try await withDataDirectory { data in
            let notes = try await data.database("notes")
            #expect(throws: SetteeError.self) { try Selector(json: "[1]") }
            #expect(throws: SetteeError.self) { try Selector(json: #"{"a": {"$nope": 1}}"#) }
            // A sort no index covers: CouchDB's no_usable_index.
            await #expect(throws: SetteeError.self) {
                try await notes.find(Note.self, Query(Selector.field("text") == "x", sort: [.descending("text")]))
            }
            await #expect(throws: SetteeError.self) {
                try await notes.find(Note.self, Query(.all, bookmark: "not-a-bookmark"))
            }
        }
    }
}
