import Foundation
import Glibc
import SetteeTestSupport
import Testing

/// A small room (issue 41, item 3): four devices — network namespaces on one Linux bridge,
/// each with its own D-Bus and avahi — all publishing the same instance name ("Settee on
/// HOST": one machine's host name, renamed `#2`, `#3`... on the network) on the `wifi`
/// profile (1 % loss, 20 Mbit/s), syncing `room` over DNS-SD, each avahi with a host name of
/// its own; and six devices whose avahi daemons all have one host name (`ROOM_NAMES=shared`).
/// bench/room builds and measures the room (short rounds here: ROOM_QUICK); these tests hold
/// it to convergence and zero loss in each phase.
@Suite(.serialized) struct RoomTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Why the room cannot be built here, or nil.
    static var unavailable: String? {
        if let reason = DiscoveryTests.unavailable { return reason }
        for tool in ["/usr/sbin/iptables", "/usr/sbin/tc", "/usr/bin/python3"] where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is missing (iptables and tc make the room's lossy links)"
        }
        // A kernel (or container) that refuses network namespaces or bridges: say so, run nothing.
        let probe = "settee-roomprobe\(getpid())"
        defer { _ = try? DiscoveryTests.run(["ip", "netns", "delete", probe]) }
        guard (try? DiscoveryTests.run(["ip", "netns", "add", probe]))?.status == 0,
              (try? DiscoveryTests.run(["ip", "-n", probe, "link", "add", "br0", "type", "bridge"]))?.status == 0 else {
            return "network namespaces with a bridge cannot be made here"
        }
        return nil
    }

    @Test(.enabled(if: unavailable == nil, "\(unavailable ?? "")"), .timeLimit(.minutes(3)))
    func fourDevicesWithOneInstanceNameConvergeOnWifiWithNothingLost() throws {
        try Self.roomConverges(devices: 4, names: "instance")
    }

    /// Item 1 with one host name for all (every avahi is `raspberrypi`, as every Raspberry Pi
    /// is): six daemons probing one name at once, their IPv6 link-local addresses sorted the
    /// other way round from their IPv4 ones (bench/room's MAC addresses), renamed in step for
    /// ever under avahi's record-by-record tie-break and published nothing (none of six in
    /// 30 s); `HostNameGuard` gives each its own name after two collisions in a row.
    @Test(.enabled(if: unavailable == nil, "\(unavailable ?? "")"), .timeLimit(.minutes(3)))
    func sixDevicesWithOneHostNameConvergeOnWifiWithNothingLost() throws {
        try Self.roomConverges(devices: 6, names: "shared")
    }

    /// Runs bench/room's short rounds on `wifi` and holds every phase to convergence, no loss,
    /// and the room taken down.
    static func roomConverges(devices: Int, names: String) throws {
        let process = Process()
        process.executableURL = Self.root.appendingPathComponent("bench/room")
        process.environment = ProcessInfo.processInfo.environment.merging([
            "ROOM_N": "\(devices)", "ROOM_PROFILES": "wifi", "ROOM_QUICK": "1", "ROOM_NAMES": names, "ROOM_MAX_S": "150",
            "SETTEE_BIN": try SetteeProcess.binaryURL().path,
        ]) { _, new in new }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let line = { (phase: String) in output.split(separator: "\n").first { $0.hasPrefix(phase + " ") }.map(String.init) ?? "" }
        #expect(process.terminationStatus == 0, "\(output)")
        #expect(line("formed").contains("every device replicating"), "\(output)")
        #expect(line("spread").contains("over 20 writes") && !line("spread").contains("not everywhere"), "\(output)")
        #expect(line("burst").contains("documents missing somewhere: 0"), "\(output)")
        #expect(line("churn").contains("converged") && line("churn").contains("duplicated on none"), "\(output)")
        #expect(line("partition").contains("identical revision trees"), "\(output)")
        // The room is taken down: no namespace of it is left.
        let prefix = output.split(separator: "\n").first { $0.hasPrefix("-- room taken down: namespaces ") }
            .map { String($0.dropFirst("-- room taken down: namespaces ".count).dropLast()) }
        let left = try DiscoveryTests.run(["ip", "netns", "list"]).output
        #expect(prefix != nil, "\(output)")
        #expect(!left.split(separator: "\n").contains { prefix.map($0.hasPrefix) ?? false }, "\(left)")
    }
}
