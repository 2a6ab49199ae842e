import Foundation
@testable import peernotes
import Testing

@Suite struct NoteTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// A note of three lines, one a second.
    func threeLines() -> Note {
        var note = Note(firstLine: "one", at: start)
        note.append("two", at: start.addingTimeInterval(1))
        note.append("three", at: start.addingTimeInterval(2))
        return note
    }

    @Test func positionsAreUTCTimesThatSortAsText() {
        let early = Note.position(start), late = Note.position(start.addingTimeInterval(0.001))
        #expect(early == "2027-01-15T08:00:00.000Z")
        #expect(early < late)
    }

    /// A replaced line stays (marked), its replacement takes its place among the visible
    /// lines, and sorts after it and before the next line.
    @Test func replacingALineKeepsItAndPutsTheNewOneInItsPlace() {
        var note = threeLines()
        let replaced = note.replaceLine(2, with: "TWO", at: start.addingTimeInterval(10))
        #expect(replaced)
        #expect(note.visibleLines.map(\.text) == ["one", "TWO", "three"])
        #expect(note.lines.map(\.text) == ["one", "two", "TWO", "three"])
        #expect(note.lines[1].replaced == true && note.lines[2].replaced == nil)
        #expect(note.lines.map(\.pos) == note.lines.map(\.pos).sorted())
    }

    /// Two copies replacing one line apart: the union of their lines (what `_merge` by id
    /// keeps), sorted by `pos`, shows both replacements where the line stood.
    @Test func twoReplacementsOfOneLineBothStandWhereItStood() {
        var here = threeLines(), there = here
        let replacedHere = here.replaceLine(2, with: "here", at: start.addingTimeInterval(10))
        let replacedThere = there.replaceLine(2, with: "there", at: start.addingTimeInterval(11))
        #expect(replacedHere && replacedThere)
        var byID: [String: Note.Line] = [:]
        for line in here.lines + there.lines {
            var merged = byID[line.id] ?? line
            if line.replaced == true { merged.replaced = true }
            byID[line.id] = merged
        }
        var merged = here
        merged.lines = byID.values.sorted { $0.pos < $1.pos }
        #expect(merged.visibleLines.map(\.text) == ["one", "here", "there", "three"])
    }

    @Test func aLineThatIsNotThereIsNotReplaced() {
        let original = threeLines()
        var note = original
        for number in [0, 4, -1] {
            let replaced = note.replaceLine(number, with: "x")
            #expect(!replaced)
        }
        #expect(note == original)
    }

    /// `replaced` is left out of the JSON until set, so a merge with a side that set it keeps it set.
    @Test func replacedIsAbsentFromTheJSONUntilSet() throws {
        let json = String(decoding: try JSONEncoder().encode(Note(firstLine: "x", at: start)), as: UTF8.self)
        #expect(!json.contains("replaced"))
    }
}
