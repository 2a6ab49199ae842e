import Foundation
import Settee

@main
enum PeerNotes {
    static func main() async throws {
        guard let secret = ProcessInfo.processInfo.environment["PEERNOTES_SECRET"],
              case let parts = secret.split(separator: ":", maxSplits: 1).map(String.init), parts.count == 2 else {
            print("set PEERNOTES_SECRET to name:password, the same on every copy")
            return
        }
        var options = DataDirectory.Options()
        options.admins = [parts[0]: parts[1]]          // peers log in with the secret
        options.peerCredentials = secret               // and this copy logs in to them with it
        options.serviceName = "PeerNotes on \(ProcessInfo.processInfo.hostName)"
        options.serviceType = "_peernotes._tcp"        // copies of PeerNotes find only each other
        options.syncedDatabases = ["notes"]            // kept in two-way sync with every copy found
        let data = try DataDirectory(path: CommandLine.arguments.dropFirst().first ?? "peernotes-data",
                                     options: options)
        let notes = try await NoteBook.open(in: data)
        let listener = try await data.startListener(address: "0.0.0.0")
        print("syncing on \(listener.url)")
        print("ready")
        // readLine() blocks: on a thread of its own, never on Swift's cooperative pool.
        let lines = AsyncStream<String> { continuation in
            Thread {
                while let line = readLine() { continuation.yield(line) }
                continuation.finish()
            }.start()
        }
        for await line in lines {
            guard await perform(line, on: notes) else { break }
        }
        await data.close()
    }

    /// Runs one command; false for `quit`.
    static func perform(_ line: String, on notes: NoteBook) async -> Bool {
        let words = line.split(separator: " ", maxSplits: 1).map(String.init)
        do {
            switch words.first {
            case "add" where words.count == 2:
                print("added \(try await notes.add(words[1]))")
            case "append" where words.count == 2:
                let rest = words[1].split(separator: " ", maxSplits: 1).map(String.init)
                guard rest.count == 2 else { print("error: append ID TEXT"); return true }
                try await notes.append(to: rest[0], rest[1])
                print("appended to \(rest[0])")
            case "edit" where words.count == 2:
                let rest = words[1].split(separator: " ", maxSplits: 2).map(String.init)
                guard rest.count == 3, let number = Int(rest[1]) else { print("error: edit ID N TEXT"); return true }
                try await notes.replaceLine(number, of: rest[0], with: rest[2])
                print("edited \(rest[0])")
            case "list":
                for note in try await notes.all() {
                    print(note.id)
                    for (index, line) in note.value.visibleLines.enumerated() { print("  \(index + 1). \(line.text)") }
                }
            case "quit": return false
            default: print("error: add TEXT, append ID TEXT, edit ID N TEXT, list or quit")
            }
        } catch {
            print("error: \(error)")
        }
        return true
    }
}
