import Foundation
import Glibc
import Settee
import Testing

/// Browsing peers as an `AsyncSequence`. The full DNS-SD check runs in a child process —
/// this test binary again, filtered to the inner test — inside a network namespace this
/// test makes, with its own D-Bus and avahi-daemon (`scripts/mdns-host`); nothing
/// multicasts in the root namespace (../shared/PLATFORM.md, "DNS-SD").
@Suite struct PeerBrowserTests {
    static let marker = "SETTEE_TEST_PEER_BROWSER_CHILD"
    static var isChild: Bool { ProcessInfo.processInfo.environment[marker] == "1" }
    static let mdnsHost = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/mdns-host").path

    /// Why the namespace test cannot run here, or nil.
    static var unavailable: String? {
        if getuid() != 0 { return "needs root for network namespaces" }
        for tool in ["/usr/sbin/avahi-daemon", "/usr/bin/dbus-daemon", "/usr/sbin/ip", "/usr/bin/unshare"]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is missing (make test installs avahi-daemon, dbus, iproute2)"
        }
        return nil
    }

    /// Iterating starts browsing; cancelling the iterating task ends the sequence promptly
    /// (here in the root namespace, where no DNS-SD daemon answers: nothing is found).
    @Test(.enabled(if: !isChild)) func browsingStartsAndCancelsCleanly() async throws {
        try await withDataDirectory { data in
            let browser = data.browsePeers()
            #expect(browser.serviceType == "_couchdb._tcp")
            let (started, begin) = AsyncStream<Void>.makeStream()
            let iterating = Task {
                var events = 0
                begin.yield()
                for await _ in browser { events += 1 }
                return events
            }
            var waiter = started.makeAsyncIterator()
            _ = await waiter.next()
            iterating.cancel()
            _ = try await within(.seconds(5)) { await iterating.value }
            // A second iteration of the same browser starts afresh and ends the same way.
            let again = Task { for await _ in browser {} }
            again.cancel()
            try await within(.seconds(5)) { await again.value }
        }
    }

    @Test(.enabled(if: !isChild && unavailable == nil, "\(unavailable ?? "")"))
    func aPublishedDirectoryAppearsAndLeavesInANamespace() async throws {
        try await runInNamespace("browsesAPublishedDirectory")
    }

    @Test(.enabled(if: !isChild && unavailable == nil, "\(unavailable ?? "")"))
    func twoListenersOfOneDirectoryAreWithdrawnEachOnItsOwn() async throws {
        try await runInNamespace("stoppingOneListenerKeepsTheOtherPublished")
    }

    /// Runs the child test `name` (this binary again) under `scripts/mdns-host` in a namespace of its own.
    func runInNamespace(_ name: String) async throws {
        let netns = "settee-lib\(getpid() % 100_000)-\(name.count)"  // the two tests may run at once
        #expect(try await run(["ip", "netns", "add", netns]) == 0)
        defer { _ = Process.launchedProcess(launchPath: "/usr/bin/env", arguments: ["ip", "netns", "delete", netns]).waitUntilExit() }
        #expect(try await run(["ip", "-n", netns, "link", "set", "lo", "up"]) == 0)
        var environment = ProcessInfo.processInfo.environment
        environment[Self.marker] = "1"
        let test = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let (status, output) = try await runCapturing(
            [Self.mdnsHost, netns, "libhost", test, "--testing-library", "swift-testing",
             "--filter", "PeerBrowserTests/\(name)"], environment: environment)
        #expect(status == 0, "\(output)")
        #expect(output.contains("Test \(name)() passed"), "\(output)")
    }

    /// Inside the namespace: a program with two listeners publishes both; stopping the
    /// first withdraws its service only (it used to stop discovery for both), and the
    /// second is still found by a browser started afterwards, until it stops too.
    @Test(.enabled(if: isChild)) func stoppingOneListenerKeepsTheOtherPublished() async throws {
        var options = DataDirectory.Options()
        options.serviceName = "Two listeners"
        try await withDataDirectory(options: options) { a in
            let first = try await a.startListener(), second = try await a.startListener()
            #expect(first.isPublished && second.isPublished && first.port != second.port)
            try await withDataDirectory { b in
                let secondStillThere = try await within(.seconds(60)) { () async -> Bool in
                    var names: [Int: String] = [:]
                    var events = b.browsePeers().makeAsyncIterator()
                    while Set(names.keys) != [first.port, second.port], let event = await events.next() {
                        if case .appeared(let peer) = event { names[peer.port] = peer.name }
                    }
                    await first.stop()
                    // The first's service leaves (its withdrawal reached the daemon, the
                    // second's too had both been withdrawn); a browser started then finds the second.
                    while let event = await events.next(), event != .left(name: names[first.port] ?? "") {}
                    var later = b.browsePeers().makeAsyncIterator()
                    while let event = await later.next() {
                        if case .appeared(let peer) = event, peer.port == second.port { return true }
                    }
                    return false
                }
                #expect(secondStillThere)
                await second.stop()
            }
        }
    }

    /// Inside the namespace: directory A publishes its listener, B browses and sees A
    /// arrive with its name, URL, uuid and databases, then leave when A's listener stops.
    @Test(.enabled(if: isChild)) func browsesAPublishedDirectory() async throws {
        var options = DataDirectory.Options()
        options.serviceName = "Library peer A"
        options.advertisedDatabases = ["notes"]
        try await withDataDirectory(options: options) { a in
            _ = try await a.database("notes")
            let listener = try await a.startListener()
            #expect(listener.isPublished)
            try await withDataDirectory { b in
                // One task browses throughout: A must appear, then leave once its listener stops.
                let (found, left) = try await within(.seconds(60)) { () async -> (NearbyPeer?, Bool) in
                    var events = b.browsePeers().makeAsyncIterator()
                    var found: NearbyPeer?
                    while found == nil, let event = await events.next() {
                        if case .appeared(let peer) = event, peer.name == "Library peer A" { found = peer }
                    }
                    guard found != nil else { return (nil, false) }
                    await listener.stop()
                    while let event = await events.next() {
                        if event == .left(name: "Library peer A") { return (found, true) }
                    }
                    return (found, false)
                }
                let peer = try #require(found)
                #expect(peer.url.hasSuffix(":\(listener.port)") && peer.url.hasPrefix("http://"))
                #expect(peer.port == listener.port && peer.databases == ["notes"] && !peer.usesTLS)
                #expect(peer.uuid?.count == 32)
                #expect(peer.url(ofDatabase: "notes") == peer.url + "/notes")
                #expect(left)
            }
        }
    }

    func run(_ arguments: [String]) async throws -> Int32 {
        try await runCapturing(arguments, environment: ProcessInfo.processInfo.environment).status
    }
}
