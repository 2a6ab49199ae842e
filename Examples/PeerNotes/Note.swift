/*
 A note is a list of lines, and the unit of every edit is a line, so that two copies
 editing one note apart never lose each other's work when they meet:

 - adding a line appends a new element with an `id` of its own;
 - changing a line never rewrites its text: it marks the old element `replaced` and
   adds a new element whose `pos` sorts right after the old one's;
 - nothing is ever removed from `lines`.

 Replication brings both sides' revisions together as a conflict, and the database's
 policy (`_design/peernotes`, `{"policy": "_merge", "key": "id", "order": "pos"}`,
 see `NoteBook`) merges them on every copy alike: one element per `id`, each the
 union of its members (a `replaced` flag set on either side stays set), sorted by
 `pos`. Two copies that changed the same line both keep their new line; two copies
 that added lines keep both. `pos` is an ISO-8601 time (sorts as text), extended with
 `~` and a later time for a replacement: the `~` sorts it after the line it replaces
 and before the next line, whose time differs within the shared prefix.
*/
import Foundation

/// One note, as stored in the `notes` database.
struct Note: Codable, Sendable, Equatable {
    /// One line: never rewritten, only marked `replaced` (nil when it is not, so that it
    /// is absent from the JSON and a merge with a side that set it keeps it set).
    struct Line: Codable, Sendable, Equatable {
        var id: String
        var text: String
        var pos: String
        var replaced: Bool?
    }

    var lines: [Line]

    /// The lines shown: those not replaced, in order.
    var visibleLines: [Line] { lines.filter { $0.replaced != true } }

    /// A note of one line.
    init(firstLine text: String, at now: Date = Date()) {
        lines = [Line(id: Self.newID(), text: text, pos: Self.position(now))]
    }

    /// Adds `text` as the last line.
    mutating func append(_ text: String, at now: Date = Date()) {
        lines.append(Line(id: Self.newID(), text: text, pos: Self.position(now)))
    }

    /// Replaces visible line `number` (1-based) with `text`: the old line is marked
    /// replaced and the new one takes its place. False when there is no such line.
    mutating func replaceLine(_ number: Int, with text: String, at now: Date = Date()) -> Bool {
        let visible = visibleLines
        guard number >= 1, number <= visible.count,
              let index = lines.firstIndex(where: { $0.id == visible[number - 1].id }) else { return false }
        lines[index].replaced = true
        let replacement = Line(id: Self.newID(), text: text, pos: lines[index].pos + "~" + Self.position(now))
        lines.append(replacement)
        lines.sort { $0.pos < $1.pos }
        return true
    }

    static func newID() -> String { UUID().uuidString.lowercased() }

    /// `now` as ISO-8601 with milliseconds, in UTC: text that sorts as time does.
    static func position(_ now: Date) -> String {
        now.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }
}
