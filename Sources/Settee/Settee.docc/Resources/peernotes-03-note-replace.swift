import Foundation

/// One note: a list of lines. Every edit adds lines; none rewrites or removes one.
struct Note: Codable, Sendable, Equatable {
    struct Line: Codable, Sendable, Equatable {
        var id: String
        var text: String
        var pos: String
        var replaced: Bool?
    }

    var lines: [Line]

    var visibleLines: [Line] { lines.filter { $0.replaced != true } }

    init(firstLine text: String, at now: Date = Date()) {
        lines = [Line(id: Self.newID(), text: text, pos: Self.position(now))]
    }

    mutating func append(_ text: String, at now: Date = Date()) {
        lines.append(Line(id: Self.newID(), text: text, pos: Self.position(now)))
    }

    /// Replaces visible line `number` (1-based): the old line is marked replaced, and the
    /// new one's `pos` (the old one's, then `~` and now) sorts right after it.
    mutating func replaceLine(_ number: Int, with text: String, at now: Date = Date()) -> Bool {
        let visible = visibleLines
        guard number >= 1, number <= visible.count,
              let index = lines.firstIndex(where: { $0.id == visible[number - 1].id }) else { return false }
        lines[index].replaced = true
        lines.append(Line(id: Self.newID(), text: text, pos: lines[index].pos + "~" + Self.position(now)))
        lines.sort { $0.pos < $1.pos }
        return true
    }

    static func newID() -> String { UUID().uuidString.lowercased() }

    /// ISO-8601 with milliseconds, in UTC: text that sorts as time does.
    static func position(_ now: Date) -> String {
        now.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }
}
