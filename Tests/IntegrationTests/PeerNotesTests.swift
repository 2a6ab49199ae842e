import Foundation
import Glibc
import SetteeJSON
import SetteeTestSupport
import Testing

/// Examples/PeerNotes, two copies on two network-namespace hosts joined by a veth pair
/// (as `DiscoveryTests` makes them, each with its own D-Bus and avahi-daemon), driven
/// through their standard input: they find each other over DNS-SD (`_peernotes._tcp`,
/// HTTPS with the TLS profile), sync their notes, and merge edits made while apart
/// without losing a line (issue 43, item 3).
@Suite(.serialized) struct PeerNotesTests {
    /// Two namespaces joined by a veth pair, named apart from `DiscoveryTests`' own.
    struct Hosts {
        let a: String, b: String, linkB: String

        init() throws {
            let tag = String(getpid() % 100_000)
            a = "pnotes-a\(tag)"
            b = "pnotes-b\(tag)"
            linkB = "pn\(tag)b"
            let linkA = "pn\(tag)a"
            for command in [["ip", "netns", "add", a], ["ip", "netns", "add", b],
                            ["ip", "link", "add", linkA, "type", "veth", "peer", "name", linkB],
                            ["ip", "link", "set", linkA, "netns", a], ["ip", "link", "set", linkB, "netns", b],
                            ["ip", "-n", a, "addr", "add", "198.18.0.1/24", "dev", linkA],
                            ["ip", "-n", b, "addr", "add", "198.18.0.2/24", "dev", linkB],
                            ["ip", "-n", a, "link", "set", "lo", "up"], ["ip", "-n", b, "link", "set", "lo", "up"],
                            ["ip", "-n", a, "link", "set", linkA, "up"], ["ip", "-n", b, "link", "set", linkB, "up"]] {
                let result = try DiscoveryTests.run(command)
                if result.status != 0 { throw TestSupportError.badResponse("\(command.joined(separator: " ")) failed") }
            }
        }

        func setLink(up: Bool) throws {
            let result = try DiscoveryTests.run(["ip", "-n", b, "link", "set", linkB, up ? "up" : "down"])
            if result.status != 0 { throw TestSupportError.badResponse("cannot set \(linkB) \(up ? "up" : "down")") }
        }

        func remove() {
            _ = try? DiscoveryTests.run(["ip", "netns", "delete", a])
            _ = try? DiscoveryTests.run(["ip", "netns", "delete", b])
        }
    }

    static var unavailable: String? {
        if let reason = DiscoveryTests.unavailable { return reason }
        return (try? PeerNotesCopy.binaryPath()) == nil ? "peernotes is not built (swift build builds it)" : nil
    }

    /// The id `add` answered with.
    static func addedID(_ answer: String) throws -> String {
        guard answer.hasPrefix("added note-") else { throw TestSupportError.badResponse("add answered \(answer)") }
        return String(answer.dropFirst("added ".count))
    }

    /// Document `path` of `notes` as the copy on `netns` (at `address`) serves it, asked with curl there.
    static func document(_ netns: String, _ address: String, _ path: String, secret: String) throws -> JSONValue {
        let url = "https://\(address):5984/notes/\(path)"
        let answer = try DiscoveryTests.run(["ip", "netns", "exec", netns, "curl", "-sk", "-m", "10", "-u", secret, url])
        return (try? JSONReader.parse(Array(answer.output.utf8))) ?? .null
    }

    /// Polls until neither copy has a conflict left on `path`, up to `seconds`; the last answers.
    static func conflictsLeft(_ hosts: Hosts, _ path: String, secret: String, seconds: TimeInterval) throws -> [JSONValue] {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while true {
            let answers = [try document(hosts.a, "198.18.0.1", path, secret: secret),
                           try document(hosts.b, "198.18.0.2", path, secret: secret)]
            let left = answers.filter { $0["_id"] == nil || $0["_conflicts"] != nil }
            if left.isEmpty || Date() >= deadline { return left }
            usleep(200_000)  // between polls of both copies' state
        }
    }

    @Test(.enabled(if: unavailable == nil, "\(unavailable ?? "")"))
    func twoCopiesFindEachOtherSyncAndKeepEveryLineOfEditsMadeApart() throws {
        let hosts = try Hosts()
        defer { hosts.remove() }
        let dirA = try TempDirectory(prefix: "peernotes-a"), dirB = try TempDirectory(prefix: "peernotes-b")
        let secret = "notes:secret-\(UUID().uuidString.prefix(8))"
        let flags = ["--bind", "0.0.0.0", "--port", "5984", "--tls"]
        let a = try PeerNotesCopy(netns: hosts.a, host: "notes-a", directory: dirA, secret: secret,
                                  arguments: flags + ["--name", "Notes A"])
        let b = try PeerNotesCopy(netns: hosts.b, host: "notes-b", directory: dirB, secret: secret,
                                  arguments: flags + ["--name", "Notes B"])
        // A failure part-way: the copies end when these are released (SIGTERM reaches mdns-host).
        for copy in [a, b] { _ = try copy.lines { $0 == "ready" } }

        // Each adds a note; both see both.
        let fromA = try Self.addedID(try a.ask("add written on a")), fromB = try Self.addedID(try b.ask("add written on b"))
        let bothNotes = { (notes: [String: [String]]) in
            notes[fromA] == ["written on a"] && notes[fromB] == ["written on b"]
        }
        let seenOnA = try a.notes(within: 60, until: bothNotes), seenOnB = try b.notes(within: 60, until: bothNotes)
        #expect(bothNotes(seenOnA), "A lists \(seenOnA)\nA's log:\n\(a.errorOutput.suffix(3000))")
        #expect(bothNotes(seenOnB), "B lists \(seenOnB)\nB's log:\n\(b.errorOutput.suffix(3000))")

        // Apart (B's link down), both change the same line of A's note and add one to it.
        try hosts.setLink(up: false)
        #expect(try a.ask("edit \(fromA) 1 a changed this line") == "edited \(fromA)")
        #expect(try b.ask("edit \(fromA) 1 b changed this line") == "edited \(fromA)")
        #expect(try a.ask("append \(fromA) a added this line") == "appended to \(fromA)")
        #expect(try b.ask("append \(fromA) b added this line") == "appended to \(fromA)")
        // Apart indeed: each has its own edits only.
        #expect(try a.notes()[fromA] == ["a changed this line", "a added this line"])
        #expect(try b.notes()[fromA] == ["b changed this line", "b added this line"])

        // Together again: both keep all four lines, in one order (the merge is the same on both).
        try hosts.setLink(up: true)
        let merged = { (notes: [String: [String]]) in
            Set(notes[fromA] ?? []) == ["a changed this line", "b changed this line", "a added this line", "b added this line"]
                && notes[fromA]?.count == 4
        }
        let mergedOnA = try a.notes(within: 90, until: merged), mergedOnB = try b.notes(within: 90, until: merged)
        #expect(merged(mergedOnA), "A lists \(mergedOnA)\nA's log:\n\(a.errorOutput.suffix(3000))")
        #expect(merged(mergedOnB), "B lists \(mergedOnB)\nB's log:\n\(b.errorOutput.suffix(3000))")
        #expect(mergedOnA[fromA] == mergedOnB[fromA])
        // Changed lines stand where the line they replace stood, added ones after them.
        #expect(mergedOnA[fromA].map { Array($0.prefix(2)) }.map(Set.init) == ["a changed this line", "b changed this line"])
        #expect(mergedOnA[fromB] == ["written on b"] && mergedOnB[fromB] == ["written on b"])

        // The merge left no conflict; and both copies wrote the same policy document, the
        // same bytes and so the same revision, instead of two in conflict.
        let noteConflicts = try Self.conflictsLeft(hosts, fromA + "?conflicts=true", secret: secret, seconds: 20)
        #expect(noteConflicts.isEmpty, "\(noteConflicts)")
        let policyConflicts = try Self.conflictsLeft(hosts, "_design/peernotes?conflicts=true", secret: secret, seconds: 5)
        #expect(policyConflicts.isEmpty, "\(policyConflicts)")

        #expect(try a.quit() == 0)
        #expect(try b.quit() == 0)
    }
}
