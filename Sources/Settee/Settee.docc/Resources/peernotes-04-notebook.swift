import Settee

/// The app's notes: the `notes` database of a data directory.
struct NoteBook: Sendable {
    let database: Database

    static func open(in data: DataDirectory) async throws -> NoteBook {
        NoteBook(database: try await data.database("notes"))
    }

    /// A new note of one line; its id.
    func add(_ text: String) async throws -> String {
        let id = "note-" + Note.newID().prefix(8)
        _ = try await database.save(Note(firstLine: text), id: id)
        return id
    }

    /// Every note, oldest first.
    func all() async throws -> [Document<Note>] {
        var notes: [Document<Note>] = []
        var query = Query(Selector.field("_id").begins(with: "note-"), limit: 200)
        while true {
            let page = try await database.find(Note.self, query)
            notes += page.documents
            if page.documents.count < query.limit { break }
            query.bookmark = page.bookmark
        }
        return notes.sorted { ($0.value.lines.first?.pos ?? "") < ($1.value.lines.first?.pos ?? "") }
    }
}
