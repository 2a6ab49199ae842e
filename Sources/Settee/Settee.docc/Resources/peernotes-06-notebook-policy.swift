import Settee

/// The app's notes: the `notes` database of a data directory.
struct NoteBook: Sendable {
    struct NoSuchNote: Error { let id: String }
    struct NoSuchLine: Error { let id: String, number: Int }

    /// The conflict policy, in a design document: it replicates with the notes, so
    /// every copy merges a conflict the same way.
    struct Policy: Codable, Sendable {
        struct Conflicts: Codable, Sendable {
            var policy = "_merge"
            var key = "id"
            var order = "pos"
        }
        var conflicts = Conflicts()
    }

    let database: Database

    static func open(in data: DataDirectory) async throws -> NoteBook {
        let database = try await data.database("notes")
        if try await database.document(Policy.self, id: "_design/peernotes") == nil {
            do {
                _ = try await database.save(Policy(), id: "_design/peernotes")
            } catch SetteeError.conflict {
                // Another copy's policy arrived first: the same policy.
            }
        }
        return NoteBook(database: database)
    }

    /// A new note of one line; its id.
    func add(_ text: String) async throws -> String {
        let id = "note-" + Note.newID().prefix(8)
        _ = try await database.save(Note(firstLine: text), id: id)
        return id
    }

    /// Reads note `id`, applies `change`, saves it over the revision read. A conflict means
    /// someone saved in between (a peer, through the listener): read again, change again.
    func change(_ id: String, _ change: (inout Note) throws -> Void) async throws {
        for _ in 0..<5 {
            guard var note = try await database.document(Note.self, id: id) else { throw NoSuchNote(id: id) }
            try change(&note.value)
            do {
                _ = try await database.save(note)
                return
            } catch SetteeError.conflict {
                continue
            }
        }
    }

    func append(to id: String, _ text: String) async throws {
        try await change(id) { $0.append(text) }
    }

    func replaceLine(_ number: Int, of id: String, with text: String) async throws {
        try await change(id) { note in
            guard note.replaceLine(number, with: text) else { throw NoSuchLine(id: id, number: number) }
        }
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
