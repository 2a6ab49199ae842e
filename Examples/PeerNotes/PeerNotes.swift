/*
 PeerNotes: a terminal notes app that embeds Settee (`import Settee`, nothing else of
 it). It keeps its notes in a data directory, serves them on a port, publishes itself
 on DNS-SD as `_peernotes._tcp`, and keeps the `notes` database in two-way sync with
 every other copy it finds there that knows the same secret. Concurrent edits merge
 without losing a line (`Note`, `NoteBook`). The DocC tutorial in
 Sources/Settee/Settee.docc builds it step by step.

 It reads commands from standard input (`Command.usage`) and answers each on standard
 output, one line per answer (`list`: the notes, then a count), so that a script or a
 test can drive it through a pipe.
*/
import Foundation
import Settee

@main
enum PeerNotes {
    static func main() async {
        // avahi's compatibility library warns on every start otherwise; set before any thread starts.
        setenv("AVAHI_COMPAT_NOWARN", "1", 0)
        let arguments: Arguments
        do {
            arguments = try Arguments.parse(Array(CommandLine.arguments.dropFirst()),
                                            environment: ProcessInfo.processInfo.environment)
        } catch {
            Terminal.complain("peernotes: \(error.message)\n\(Arguments.usage)")
            exit(2)
        }
        do {
            try await run(arguments)
        } catch {
            Terminal.complain("peernotes: \(error)")
            exit(1)
        }
    }

    static func run(_ arguments: Arguments) async throws {
        let data = try DataDirectory(path: arguments.dataDirectory, options: options(arguments))
        let notes = try await NoteBook.open(in: data)
        let listener = try await data.startListener(port: arguments.port, address: arguments.address,
                                                    tls: arguments.usesTLS ? .selfSigned : nil)
        Terminal.say("PeerNotes: notes in \(data.path), syncing on \(listener.url)")
        if let fingerprint = listener.tlsFingerprint { Terminal.say("TLS certificate SHA-256 fingerprint: \(fingerprint)") }
        Terminal.say("ready")
        for await line in Terminal.lines() {
            guard await perform(line, on: notes) else { break }
        }
        await data.close()
    }

    /// What the data directory is opened with: the secret as the one admin (peers log in
    /// with it), published and synced with every copy of PeerNotes found on DNS-SD.
    static func options(_ arguments: Arguments) -> DataDirectory.Options {
        var options = DataDirectory.Options()
        let admin = arguments.admin
        options.admins = [admin.name: admin.password]
        options.peerCredentials = "\(admin.name):\(admin.password)"
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "here"
        options.serviceName = arguments.name ?? "PeerNotes on \(host)"
        options.serviceType = "_peernotes._tcp"
        options.syncedDatabases = [NoteBook.databaseName]
        // Peers prove themselves with the secret; the advertised fingerprint keeps the
        // connection private (trust on first sight, which this app opts into with --tls).
        options.trustsAdvertisedFingerprints = arguments.usesTLS
        return options
    }

    /// Runs one command line and prints its answer; false for `quit`.
    static func perform(_ line: String, on notes: NoteBook) async -> Bool {
        let command: Command
        switch Command.parse(line) {
        case .success(let parsed): command = parsed
        case .failure(let error):
            Terminal.say("error: \(error.message)")
            return true
        }
        do {
            switch command {
            case .add(let text): Terminal.say("added \(try await notes.add(text))")
            case .append(let id, let text):
                try await notes.append(to: id, text)
                Terminal.say("appended to \(id)")
            case .edit(let id, let number, let text):
                try await notes.replaceLine(number, of: id, with: text)
                Terminal.say("edited \(id)")
            case .list: print(try await notes.all())
            case .help: Terminal.say(Command.usage)
            case .quit: return false
            case .empty: break
            }
        } catch {
            Terminal.say("error: \(error)")
        }
        return true
    }

    /// Each note's id, then its lines numbered, then how many notes there are.
    static func print(_ notes: [Document<Note>]) {
        var text = ""
        for note in notes {
            text += note.id + "\n"
            for (index, line) in note.value.visibleLines.enumerated() { text += "  \(index + 1). \(line.text)\n" }
        }
        text += notes.count == 1 ? "1 note" : "\(notes.count) notes"
        Terminal.say(text)
    }
}
