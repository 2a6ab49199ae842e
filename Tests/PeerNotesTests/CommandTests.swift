@testable import peernotes
import Testing

@Suite struct CommandTests {
    @Test(arguments: [
        ("add buy milk", Command.add("buy milk")),
        ("  add   spaced out  ", .add("spaced out")),
        ("append note-1 and eggs", .append(id: "note-1", text: "and eggs")),
        ("edit note-1 2 oat milk", .edit(id: "note-1", line: 2, text: "oat milk")),
        ("LIST", .list), ("ls", .list), ("help", .help), ("quit", .quit), ("exit", .quit), ("", .empty), ("   ", .empty),
    ])
    func understands(_ line: String, _ command: Command) throws {
        #expect(try Command.parse(line).get() == command)
    }

    @Test(arguments: ["add", "append note-1", "edit note-1 two text", "edit note-1 2", "edit", "frobnicate"])
    func refuses(_ line: String) {
        guard case .failure(let error) = Command.parse(line) else {
            Issue.record("\(line) was understood")
            return
        }
        #expect(!error.message.isEmpty)
    }
}
