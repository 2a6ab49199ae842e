import Foundation
import Settee

/// The app's notes: the `notes` database of a data directory, with the conflict policy
/// that merges concurrent edits (see `Note`).
struct NoteBook: Sendable {
    static let databaseName = "notes"
    /// Where the policy lives: a design document, so that it replicates with the notes
    /// and every copy resolves a conflict the same way.
    static let policyDocument = "_design/peernotes"

    /// The design document declaring `_merge` by line `id`, ordered by `pos`.
    struct Policy: Codable, Sendable, Equatable {
        struct Conflicts: Codable, Sendable, Equatable {
            var policy = "_merge"
            var key = "id"
            var order = "pos"
        }
        var conflicts = Conflicts()
    }

    enum Failure: Error, CustomStringConvertible {
        case noSuchNote(String)
        case noSuchLine(String, Int)
        case busy(String)

        var description: String {
            switch self {
            case .noSuchNote(let id): "no note \(id)"
            case .noSuchLine(let id, let number): "\(id) has no line \(number)"
            case .busy(let id): "\(id) kept changing under this edit; try again"
            }
        }
    }

    let database: Database

    /// Opens the notes of `data`, writing the conflict policy when it is missing.
    static func open(in data: DataDirectory) async throws -> NoteBook {
        let database = try await data.database(databaseName)
        if try await database.document(Policy.self, id: policyDocument) == nil {
            do {
                _ = try await database.save(Policy(), id: policyDocument)
            } catch SetteeError.conflict {
                // Another copy's policy arrived first: the same document.
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

    /// Applies `change` to note `id` and saves it; a save that lost a race with a peer's
    /// write (a conflict) reads the note again and applies the change to it.
    func change(_ id: String, _ change: (inout Note) throws -> Void) async throws {
        for _ in 0..<5 {
            guard var note = try await database.document(Note.self, id: id) else { throw Failure.noSuchNote(id) }
            try change(&note.value)
            do {
                _ = try await database.save(note)
                return
            } catch SetteeError.conflict {
                continue
            }
        }
        throw Failure.busy(id)
    }

    func append(to id: String, _ text: String) async throws {
        try await change(id) { $0.append(text) }
    }

    func replaceLine(_ number: Int, of id: String, with text: String) async throws {
        try await change(id) { note in
            guard note.replaceLine(number, with: text) else { throw Failure.noSuchLine(id, number) }
        }
    }

    /// Every note, oldest first (by its first line's position, then id).
    func all() async throws -> [Document<Note>] {
        var notes: [Document<Note>] = []
        var query = Query(Selector.field("_id").begins(with: "note-"), limit: 200)
        while true {
            let page = try await database.find(Note.self, query)
            notes += page.documents
            if page.documents.count < query.limit { break }
            query.bookmark = page.bookmark
        }
        return notes.sorted { ($0.value.lines.first?.pos ?? "", $0.id) < ($1.value.lines.first?.pos ?? "", $1.id) }
    }
}
