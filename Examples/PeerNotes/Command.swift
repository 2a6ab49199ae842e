/// One line of standard input, understood.
enum Command: Equatable {
    case add(String)
    case append(id: String, text: String)
    case edit(id: String, line: Int, text: String)
    case list
    case help
    case quit
    case empty

    static let usage = """
        add TEXT             a new note, TEXT its first line
        append ID TEXT       add a line to note ID
        edit ID N TEXT       change line N of note ID (both versions are kept if another copy changes it too)
        list                 every note
        quit                 close the notes and exit (end of input does too)
        """

    /// The command `line` asks for; a message saying what is wrong when it is not one.
    static func parse(_ line: String) -> Result<Command, CommandError> {
        let words = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard let verb = words.first?.lowercased() else { return .success(.empty) }
        let rest = words.count > 1 ? String(words[1]).trimmingBlanks : ""
        switch verb {
        case "add":
            return rest.isEmpty ? .failure(CommandError("add needs the note's text")) : .success(.add(rest))
        case "append":
            guard let (id, text) = split(rest), !text.isEmpty else { return .failure(CommandError("append ID TEXT")) }
            return .success(.append(id: id, text: text))
        case "edit":
            guard let (id, tail) = split(rest), let (number, text) = split(tail), let line = Int(number), !text.isEmpty
            else { return .failure(CommandError("edit ID N TEXT")) }
            return .success(.edit(id: id, line: line, text: text))
        case "list", "ls": return .success(.list)
        case "help", "?": return .success(.help)
        case "quit", "exit": return .success(.quit)
        default: return .failure(CommandError("unknown command \(verb); try help"))
        }
    }

    /// The first word of `text` and the rest.
    private static func split(_ text: String) -> (String, String)? {
        let words = text.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard let first = words.first else { return nil }
        return (String(first), words.count > 1 ? String(words[1]).trimmingBlanks : "")
    }
}

struct CommandError: Error, Equatable {
    let message: String
    init(_ message: String) { self.message = message }
}

extension String {
    var trimmingBlanks: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed())
    }
}
