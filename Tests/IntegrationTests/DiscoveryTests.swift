import Foundation
import Glibc
import SetteeJSON
import SetteeTestSupport
import Testing

/// Two Settees on two "hosts" — network namespaces this test makes, joined by a veth
/// pair (198.18.0.0/15, the benchmarking range, inside the namespaces only), each with
/// its own D-Bus and avahi-daemon (`scripts/mdns-host`) — find each other over DNS-SD
/// and keep a database in sync (issue 21). Nothing runs in the root namespace.
@Suite(.serialized) struct DiscoveryTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let mdnsHost = root.appendingPathComponent("scripts/mdns-host").path

    /// Why these tests cannot run here, or nil.
    static var unavailable: String? {
        if getuid() != 0 { return "needs root for network namespaces" }
        for tool in ["/usr/sbin/avahi-daemon", "/usr/bin/dbus-daemon", "/usr/sbin/ip", "/usr/bin/unshare", "/usr/bin/curl"]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is missing (make test installs avahi-daemon, dbus, iproute2, curl)"
        }
        return nil
    }

    /// Runs a command (with `environment` added to this process's); its status and standard output.
    @discardableResult
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Two namespaces joined by a veth pair; removed by `remove()` (their processes must be gone first).
    struct Hosts {
        let a: String, b: String
        let addressA = "198.18.0.1", addressB = "198.18.0.2"
        /// B's end of the veth pair (inside B).
        let linkB: String

        init() throws {
            let tag = String(getpid() % 100_000)
            a = "settee-a\(tag)"
            b = "settee-b\(tag)"
            linkB = "sv\(tag)b"
            for command in [["ip", "netns", "add", a], ["ip", "netns", "add", b],
                            ["ip", "link", "add", "sv\(tag)a", "type", "veth", "peer", "name", "sv\(tag)b"],
                            ["ip", "link", "set", "sv\(tag)a", "netns", a], ["ip", "link", "set", "sv\(tag)b", "netns", b],
                            ["ip", "-n", a, "addr", "add", addressA + "/24", "dev", "sv\(tag)a"],
                            ["ip", "-n", b, "addr", "add", addressB + "/24", "dev", "sv\(tag)b"],
                            ["ip", "-n", a, "link", "set", "lo", "up"], ["ip", "-n", b, "link", "set", "lo", "up"],
                            ["ip", "-n", a, "link", "set", "sv\(tag)a", "up"], ["ip", "-n", b, "link", "set", "sv\(tag)b", "up"]] {
                let result = try DiscoveryTests.run(command)
                if result.status != 0 { throw TestSupportError.badResponse("\(command.joined(separator: " ")) failed") }
            }
        }

        func remove() {
            _ = try? DiscoveryTests.run(["ip", "netns", "delete", a])
            _ = try? DiscoveryTests.run(["ip", "netns", "delete", b])
        }
    }

    /// A and B, each a settee syncing `shared` on a host of its own (`Hosts`), both on port 5984,
    /// with host names and data directories named after `name`; B starts under `aroundB` (see
    /// `settee`'s `around`). `stop()` ends both (SIGTERM: mdns-host then stops its daemons, where
    /// SIGKILL would leave them running) and removes the namespaces.
    final class Pair {
        let hosts: Hosts
        let a: SetteeProcess, b: SetteeProcess
        let baseA: String, baseB: String
        /// Kept for the servers' lifetime (removed when released).
        private let directories: [TempDirectory]

        init(_ name: String, aroundB: [String] = [], topology: String? = nil) throws {
            let hosts = try Hosts()
            var started: [SetteeProcess] = []
            do {
                let dirA = try TempDirectory(prefix: "\(name)-a"), dirB = try TempDirectory(prefix: "\(name)-b")
                started.append(try DiscoveryTests.settee(hosts.a, host: "\(name)-a", data: dirA.appending("data"),
                                                         ini: dirA.appending("s.ini"), port: 5984, topology: topology))
                started.append(try DiscoveryTests.settee(hosts.b, host: "\(name)-b", data: dirB.appending("data"),
                                                         ini: dirB.appending("s.ini"), port: 5984, around: aroundB,
                                                         topology: topology))
                directories = [dirA, dirB]
            } catch {
                Self.end(started)
                hosts.remove()
                throw error
            }
            (self.hosts, a, b) = (hosts, started[0], started[1])
            (baseA, baseB) = ("http://\(hosts.addressA):5984", "http://\(hosts.addressB):5984")
        }

        func stop() {
            Self.end([a, b])
            hosts.remove()
        }

        private static func end(_ servers: [SetteeProcess]) {
            for server in servers { server.kill(SIGTERM); _ = try? server.waitForExit() }
        }
    }

    /// A settee on `netns` with `[discovery]` syncing `shared`, listening on `address:port`.
    /// `around`: a command (and its arguments) that runs first and ends by exec'ing "$@", the settee.
    /// `bind`, `environment`, `name`: the address to listen on, variables for mdns-host and
    /// settee, and the `[discovery] name` (nil: the default, one for every host of this machine);
    /// `topology`: `[discovery] topology` (nil: the default).
    static func settee(_ netns: String, host: String, data: String, ini: String, port: Int, around: [String] = [],
                       bind: String = "0.0.0.0", environment: [String: String] = [:], name: String? = nil,
                       topology: String? = nil) throws -> SetteeProcess {
        let admin = SetteeProcess.defaultAdmin
        try """
            [discovery]
            enabled = true
            sync = shared
            credentials = \(admin.name):\(admin.password)
            """.appending(name.map { "\nname = \($0)" } ?? "").appending(topology.map { "\ntopology = \($0)" } ?? "")
            .write(toFile: ini, atomically: true, encoding: .utf8)
        let process = try SetteeProcess(
            arguments: ["--bind", bind, "--port", String(port), "--data-dir", data, "--config", ini],
            environment: environment.merging(["SETTEE_ADMIN": "\(admin.name):\(admin.password)", "SETTEE_LOG_LEVEL": "info"]) { $1 },
            launcher: [mdnsHost, netns, host] + around)
        _ = try process.waitUntilListening()
        return process
    }

    /// `settee peers --json` for 3 s inside `netns`, beside the server there, under an avahi-daemon
    /// that only browses: a second publishing daemon on the server's address claims the same
    /// reverse-lookup record, and the server's daemon, probing at the same moment, renamed
    /// its host five times and once was left unresolvable (CI, stop 51).
    static func browse(_ netns: String, host: String) throws -> (status: Int32, output: String) {
        try run([mdnsHost, netns, host, try SetteeProcess.binaryURL().path, "peers", "--json", "--seconds", "3"],
                environment: ["MDNS_HOST_PUBLISH": "no"])
    }

    /// `curl` inside `netns` as the admin; the JSON answer.
    static func call(_ netns: String, _ method: String, _ url: String, _ body: String? = nil) throws -> JSONValue {
        let admin = SetteeProcess.defaultAdmin
        var command = ["ip", "netns", "exec", netns, "curl", "-sS", "-m", "30", "-u", "\(admin.name):\(admin.password)",
                       "-X", method, url]
        if let body { command += ["-H", "Content-Type: application/json", "-d", body] }
        return (try? JSONReader.parse(Array(try run(command).output.utf8))) ?? .null
    }

    /// Waits (a longpoll on the database's feed, not a sleep) until `doc` is readable, up to `seconds`.
    static func waitForDocument(_ netns: String, _ base: String, _ doc: String, seconds: Double) throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        var since = "now"
        while Date() < deadline {
            if try call(netns, "GET", "\(base)/shared/\(doc)")["_id"] != nil { return true }
            let feed = try call(netns, "GET", "\(base)/shared/_changes?feed=longpoll&timeout=1000&since=\(since)")
            since = feed["last_seq"]?.stringValue ?? since
        }
        return false
    }

    @Test(.enabled(if: unavailable == nil, "\(unavailable ?? "")"))
    func twoServersFindEachOtherSyncAndResumeAfterMovingPort() throws {
        let hosts = try Hosts()
        defer { hosts.remove() }
        let dirA = try TempDirectory(prefix: "discovery-a"), dirB = try TempDirectory(prefix: "discovery-b")
        var a = try Self.settee(hosts.a, host: "settee-a", data: dirA.appending("data"), ini: dirA.appending("s.ini"), port: 5984)
        let b = try Self.settee(hosts.b, host: "settee-b", data: dirB.appending("data"), ini: dirB.appending("s.ini"), port: 5984)
        // SIGTERM: mdns-host then stops its daemons (SIGKILL would leave them running).
        defer { for server in [a, b] { server.kill(SIGTERM); _ = try? server.waitForExit() } }
        let baseA = "http://\(hosts.addressA):5984", baseB = "http://\(hosts.addressB):5984"
        // Each made its `sync` database before publishing, so its first TXT record lists it (a
        // record changed while avahi probed the name had the service renamed: SetteeNode+SyncDatabases).
        for (netns, base) in [(hosts.a, baseA), (hosts.b, baseB)] {
            #expect(try Self.call(netns, "GET", base + "/shared")["db_name"] == "shared")
        }

        // B finds A with the TXT profile. One 3 s browse can end before A's record reaches B
        // on a loaded machine: browse again, up to five times, until A is listed with `shared`.
        let uuidA = try Self.call(hosts.a, "GET", baseA + "/")["uuid"]?.stringValue
        var found: JSONValue?, output = ""
        for _ in 0..<5 where found?["databases"] != ["shared"] {
            let listing = try Self.browse(hosts.b, host: "settee-b-cli")
            output = listing.output
            let peers = (try? JSONReader.parse(Array(listing.output.utf8)))?.arrayValue ?? []
            found = peers.first { $0["url"]?.stringValue == baseA }
        }
        // When B never lists A, what both servers said of mDNS is what tells why.
        let mdnsLines = { (server: SetteeProcess) in
            server.output.split(separator: "\n").filter { $0.contains("mDNS") || $0.contains("iscovery") }.suffix(20)
                .joined(separator: "\n")
        }
        #expect(found?["uuid"]?.stringValue == uuidA, "\(output)\nA:\n\(mdnsLines(a))\nB:\n\(mdnsLines(b))")
        #expect(found?["databases"] == ["shared"], "\(output)")

        // Both run on one machine's host name, so both ask for the same service name
        // ("Settee on HOST", as every Raspberry Pi is `raspberrypi`): the one that loses
        // the conflict is renamed (by avahi, `#2`, across hosts), says so once, and A finds it too.
        let uuidB = try Self.call(hosts.b, "GET", baseB + "/")["uuid"]?.stringValue
        var foundB: JSONValue?
        for _ in 0..<5 where foundB == nil {
            let listing = try Self.browse(hosts.a, host: "settee-a-cli")
            let peers = (try? JSONReader.parse(Array(listing.output.utf8)))?.arrayValue ?? []
            foundB = peers.first { $0["url"]?.stringValue == baseB }
        }
        #expect(foundB?["uuid"]?.stringValue == uuidB, "A:\n\(mdnsLines(a))\nB:\n\(mdnsLines(b))")
        let renames = [a, b].map { server in server.output.split(separator: "\n").filter { $0.contains("publishing as") } }
        // One of them renamed, each said at most once. Both may be: avahi's simultaneous-probe
        // tie-break sometimes renames both sides (`#2`, `#3`, or further when a re-registration
        // meets the other's probe); the suffix is avahi's ` #N` or Bonjour's ` (N)`.
        #expect(renames.map(\.count).max() == 1, "A:\n\(mdnsLines(a))\nB:\n\(mdnsLines(b))")
        #expect(renames.joined().allSatisfy { $0.contains(#/\ (#[0-9]+|\([0-9]+\))"$/#) }, "\(renames)")

        // Edits on each side arrive on the other.
        #expect(try Self.call(hosts.a, "PUT", baseA + "/shared/from-a", #"{"side":"a"}"#)["ok"] == true)
        #expect(try Self.call(hosts.b, "PUT", baseB + "/shared/from-b", #"{"side":"b"}"#)["ok"] == true)
        #expect(try Self.waitForDocument(hosts.b, baseB, "from-a", seconds: 20))
        #expect(try Self.waitForDocument(hosts.a, baseA, "from-b", seconds: 20))

        // B's /_peers: A by name and address, last seen, syncing both ways.
        let aOnB = try Self.call(hosts.b, "GET", baseB + "/_peers?reachable=false")["peers"]?.arrayValue?
            .first { $0["uuid"]?.stringValue == uuidA }
        #expect(aOnB?["state"] == "syncing", "\(String(describing: aOnB))")
        // Its IPv4 address first (the URL's); its IPv6 link-local one may follow (avahi
        // publishes AAAA records over IPv4 too).
        #expect(aOnB?["addresses"]?.arrayValue?.first == .string(hosts.addressA), "\(String(describing: aOnB))")
        #expect(aOnB?["last_seen"]?.stringValue != nil)
        #expect(Set(aOnB?["replications"]?.arrayValue?.compactMap { $0["direction"]?.stringValue } ?? []) == ["pull", "push"])

        // A's pull from B has checkpointed (so that a restart can resume from it).
        let pullJob = { (base: String) throws -> JSONValue? in
            let jobs = try Self.call(hosts.a, "GET", base + "/_scheduler/jobs")["jobs"]?.arrayValue ?? []
            return jobs.first { $0["id"]?.stringValue?.hasSuffix("+shared+pull") == true }
        }
        let seqB = try Self.call(hosts.b, "GET", baseB + "/shared")["update_seq"]
        let checkpointDeadline = Date().addingTimeInterval(30)
        while Date() < checkpointDeadline, try pullJob(baseA)?["info"]?["checkpointed_source_seq"] != seqB {
            _ = try Self.call(hosts.b, "GET", baseB + "/shared/_changes?feed=longpoll&timeout=1000&since=now")
        }
        #expect(try pullJob(baseA)?["info"]?["checkpointed_source_seq"] == seqB)

        // A leaves: B notices within 5 s (the goodbye, or the record's expiry) and lists it as
        // gone, with no replications (not as failing).
        a.kill(SIGTERM)
        #expect(try a.waitForExit() == 0)
        let left = Date()
        var listed: JSONValue?
        while Date().timeIntervalSince(left) < 5 {
            listed = try Self.call(hosts.b, "GET", baseB + "/_peers?reachable=false")["peers"]?.arrayValue?
                .first { $0["uuid"]?.stringValue == uuidA }
            if listed?["state"] == "gone" { break }
            usleep(100_000)
        }
        #expect(listed?["state"] == "gone", "B lists A as \(String(describing: listed)) 5 s after it left\nB:\n\(mdnsLines(b))")
        #expect(listed?["replications"] == [])

        // B writes while A is away; A comes back on another port and gets it, resuming.
        #expect(try Self.call(hosts.b, "PUT", baseB + "/shared/while-away", #"{"side":"b"}"#)["ok"] == true)
        a = try Self.settee(hosts.a, host: "settee-a", data: dirA.appending("data"), ini: dirA.appending("s.ini"), port: 5985)
        let movedA = "http://\(hosts.addressA):5985"
        #expect(try Self.waitForDocument(hosts.a, movedA, "while-away", seconds: 20))
        // A's new pull resumed from its checkpoint: it looked at the one change made
        // while it was away, not at B's three.
        let resumed = try pullJob(movedA)
        #expect(resumed?["info"]?["revisions_checked"]?.intValue == 1, "\(String(describing: resumed))")
    }

    /// A device whose avahi-daemon `HostNameGuard` renamed is heard by the others. To make B's
    /// daemon collide on its name at start, a second publishing daemon starts beside it for a few
    /// seconds (two daemons on one address claim the same reverse-lookup record). Renamed while
    /// it was registering its addresses, avahi 0.8 kept them under the old name: B's services
    /// pointed at a host name nobody could resolve, and A never listed B (1 to 3 runs in 4 before
    /// `HostRecordCheck`; a room of 20 sharing a host name lost one device so in about 1 of 4).
    @Test(.enabled(if: unavailable == nil, "\(unavailable ?? "")"))
    func aDeviceWhoseDaemonWasRenamedIsHeard() throws {
        let hosts = try Hosts()
        defer { hosts.remove() }
        let dirA = try TempDirectory(prefix: "renamed-a"), dirB = try TempDirectory(prefix: "renamed-b")
        let a = try Self.settee(hosts.a, host: "settee-a", data: dirA.appending("data"), ini: dirA.appending("s.ini"), port: 5984)
        let rival = Process()
        rival.executableURL = URL(fileURLWithPath: Self.mdnsHost)
        rival.arguments = [hosts.b, "settee-b-rival", "/bin/sleep", "5"]
        try rival.run()
        defer { rival.terminate(); rival.waitUntilExit() }
        let b = try Self.settee(hosts.b, host: "settee-b", data: dirB.appending("data"), ini: dirB.appending("s.ini"), port: 5984)
        defer { for server in [a, b] { server.kill(SIGTERM); _ = try? server.waitForExit() } }
        let uuidB = try Self.call(hosts.b, "GET", "http://\(hosts.addressB):5984/")["uuid"]?.stringValue
        var found: JSONValue?
        for _ in 0..<8 where found == nil {
            let peers = (try? JSONReader.parse(Array(try Self.browse(hosts.a, host: "settee-a-cli").output.utf8)))?.arrayValue ?? []
            found = peers.first { $0["uuid"]?.stringValue == uuidB }
        }
        let mdns = { (server: SetteeProcess) in server.output.split(separator: "\n").filter { $0.contains("mDNS") }.joined(separator: "\n") }
        #expect(found?["url"]?.stringValue == "http://\(hosts.addressB):5984", "A:\n\(mdns(a))\nB:\n\(mdns(b))")
    }

    /// Listed away or gone, or no longer listed at all (avahi's record expired while the
    /// test polled: seen once in a fresh clone's run), never as failing.
    static func isDeparted(_ listed: JSONValue?) -> Bool {
        listed == .null || ["away", "gone"].contains(listed?["state"]?.stringValue ?? "")
    }

    /// A peer that goes silent (its link drops: no DNS-SD goodbye) is listed away or gone
    /// within seconds, not failing, with no replication left running for it; when its link
    /// comes back its replications start again at once and what it wrote meanwhile arrives.
    @Test(.enabled(if: unavailable == nil, "\(unavailable ?? "")"))
    func aPeerGoneSilentIsAwayNotFailingAndSyncsAgainWhenBack() throws {
        let hosts = try Hosts()
        defer { hosts.remove() }
        let dirA = try TempDirectory(prefix: "silent-a"), dirB = try TempDirectory(prefix: "silent-b")
        let a = try Self.settee(hosts.a, host: "silent-a", data: dirA.appending("data"), ini: dirA.appending("s.ini"), port: 5984)
        let b = try Self.settee(hosts.b, host: "silent-b", data: dirB.appending("data"), ini: dirB.appending("s.ini"), port: 5984)
        defer { for server in [a, b] { server.kill(SIGTERM); _ = try? server.waitForExit() } }
        let baseA = "http://\(hosts.addressA):5984", baseB = "http://\(hosts.addressB):5984"
        for (netns, base) in [(hosts.a, baseA), (hosts.b, baseB)] {
            let created = try Self.call(netns, "PUT", base + "/shared")
            #expect(created["ok"] == true || created["error"] == "file_exists", "\(created)")
        }
        #expect(try Self.call(hosts.b, "PUT", baseB + "/shared/before", #"{"side":"b"}"#)["ok"] == true)
        #expect(try Self.waitForDocument(hosts.a, baseA, "before", seconds: 30))
        let uuidB = try Self.call(hosts.b, "GET", baseB + "/")["uuid"]?.stringValue ?? "?"
        // A syncs with B (its pull brought `before`, or B's push did: wait for A's own view).
        let stateOfB = { try Self.call(hosts.a, "GET", baseA + "/_peers?reachable=false")["peers"]?.arrayValue?
            .first(where: { $0["uuid"]?.stringValue == uuidB })?["state"] }
        let met = Date().addingTimeInterval(30)
        while Date() < met, try stateOfB() != "syncing" { usleep(200_000) }
        #expect(try stateOfB() == "syncing")

        try Self.run(["ip", "-n", hosts.b, "link", "set", hosts.linkB, "down"])
        var listed: JSONValue?
        let deadline = Date().addingTimeInterval(45)
        while Date() < deadline {
            // An answer without the peer is `.null`; no answer at all stays nil.
            listed = try Self.call(hosts.a, "GET", baseA + "/_peers?reachable=false")["peers"]?.arrayValue
                .map { peers in peers.first { $0["uuid"]?.stringValue == uuidB } ?? .null }
            if Self.isDeparted(listed) { break }
            usleep(500_000)
        }
        #expect(Self.isDeparted(listed), "\(String(describing: listed))")
        #expect(listed != nil)
        let jobs = try Self.call(hosts.a, "GET", baseA + "/_scheduler/jobs")["jobs"]?.arrayValue ?? []
        #expect(!jobs.contains { $0["id"]?.stringValue?.contains(uuidB) == true }, "\(jobs)")

        // B writes while away; back on the link, A gets it without waiting out a back-off.
        #expect(try Self.call(hosts.b, "PUT", baseB + "/shared/while-silent", #"{"side":"b"}"#)["ok"] == true)
        try Self.run(["ip", "-n", hosts.b, "link", "set", hosts.linkB, "up"])
        #expect(try Self.waitForDocument(hosts.a, baseA, "while-silent", seconds: 20),
                "\(a.output.split(separator: "\n").filter { $0.contains("iscovery") }.suffix(20).joined(separator: "\n"))")
    }
}
