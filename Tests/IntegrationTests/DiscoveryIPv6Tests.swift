import Foundation
import Glibc
import SetteeJSON
import SetteeTestSupport
import Testing

/// A room whose link has only IPv6 link-local addresses (issue 41, item 4): three devices —
/// network namespaces this test makes, each with its own D-Bus and an IPv6-only avahi
/// (`MDNS_HOST_FAMILY=ipv6`) — on one Linux bridge (in a fourth namespace) with no IPv4
/// address anywhere, each running `settee serve --bind ::` with `[discovery] sync = shared`.
/// They find each other by AAAA records, reach each other at `http://[fe80::…%25eth0]:PORT`
/// (RFC 6874) and sync every way. Nothing runs in the root namespace.
@Suite(.serialized) struct DiscoveryIPv6Tests {
    /// Why this cannot run here, or nil.
    static var unavailable: String? {
        if let reason = DiscoveryTests.unavailable { return reason }
        if !FileManager.default.fileExists(atPath: "/proc/sys/net/ipv6") { return "this kernel has no IPv6" }
        return nil
    }

    /// Devices `d0`, `d1`, `d2`, each with one link `eth0` to a bridge in namespace `sw`.
    struct Room {
        let devices: [String]
        let bridge: String

        init(count: Int) throws {
            let tag = String(getpid() % 100_000)
            bridge = "settee6-sw\(tag)"
            devices = (0..<count).map { "settee6-d\($0)-\(tag)" }
            var commands = [["ip", "netns", "add", bridge],
                            ["ip", "-n", bridge, "link", "add", "br0", "type", "bridge", "mcast_snooping", "0"],
                            ["ip", "-n", bridge, "link", "set", "br0", "up"]]
            for (index, device) in devices.enumerated() {
                let port = "p\(index)"
                commands += [["ip", "netns", "add", device],
                             // No duplicate address detection: the link-local address is usable at once.
                             ["ip", "netns", "exec", device, "sysctl", "-qw", "net.ipv6.conf.default.accept_dad=0"],
                             ["ip", "netns", "exec", device, "sysctl", "-qw", "net.ipv6.conf.all.accept_dad=0"],
                             ["ip", "-n", bridge, "link", "add", port, "type", "veth", "peer", "name", "eth0", "netns", device],
                             ["ip", "-n", bridge, "link", "set", port, "master", "br0"],
                             ["ip", "-n", bridge, "link", "set", port, "up"],
                             ["ip", "-n", device, "link", "set", "lo", "up"],
                             ["ip", "-n", device, "link", "set", "eth0", "up"]]
            }
            for command in commands {
                let result = try DiscoveryTests.run(command)
                if result.status != 0 {
                    remove()
                    throw TestSupportError.badResponse("\(command.joined(separator: " ")) failed")
                }
            }
        }

        /// The device's link-local address on eth0 (no zone), once the kernel has one that is not tentative.
        func linkLocal(_ device: String, seconds: Double = 10) throws -> String? {
            let deadline = Date().addingTimeInterval(seconds)
            repeat {
                let shown = try DiscoveryTests.run(["ip", "-n", device, "-6", "-o", "addr", "show", "dev", "eth0", "scope", "link"]).output
                if !shown.contains("tentative"), let field = shown.split(separator: " ").first(where: { $0.hasPrefix("fe80:") }) {
                    return String(field.split(separator: "/")[0])
                }
                usleep(50_000)
            } while Date() < deadline
            return nil
        }

        func remove() {
            for namespace in devices + [bridge] { _ = try? DiscoveryTests.run(["ip", "netns", "delete", namespace]) }
        }
    }

    @Test(.enabled(if: unavailable == nil, "\(unavailable ?? "")"), .timeLimit(.minutes(3)))
    func threeDevicesWithOnlyLinkLocalIPv6FindEachOtherAndSyncEveryWay() throws {
        let room = try Room(count: 3)
        defer { room.remove() }
        let linkLocals = try room.devices.map { try #require(try room.linkLocal($0), "no link-local address on \($0)") }
        // Nothing of IPv4 on the devices' links.
        for device in room.devices {
            #expect(try DiscoveryTests.run(["ip", "-n", device, "-4", "-o", "addr", "show", "dev", "eth0"]).output.isEmpty)
        }
        let dirs = try room.devices.map { _ in try TempDirectory(prefix: "discovery6") }
        var servers: [SetteeProcess] = []
        defer { for server in servers { server.kill(SIGTERM); _ = try? server.waitForExit() } }
        for (index, device) in room.devices.enumerated() {
            servers.append(try DiscoveryTests.settee(device, host: "settee6-\(index)", data: dirs[index].appending("data"),
                                                     ini: dirs[index].appending("s.ini"), port: 5984, bind: "::",
                                                     environment: ["MDNS_HOST_FAMILY": "ipv6"], name: "Settee \(index)"))
        }
        let local = "http://[::1]:5984"
        for device in room.devices {
            let created = try DiscoveryTests.call(device, "PUT", local + "/shared")
            #expect(created["ok"] == true || created["error"] == "file_exists", "\(created)")
        }
        // The server answers on its link-local address too, from a neighbour (the zone says which link).
        let welcome = try DiscoveryTests.call(room.devices[1], "GET", "http://[\(linkLocals[0])%25eth0]:5984/")
        #expect(welcome["couchdb"] == "Welcome", "\(welcome)")

        for (index, device) in room.devices.enumerated() {
            #expect(try DiscoveryTests.call(device, "PUT", local + "/shared/from-\(index)", #"{"n":\#(index)}"#)["ok"] == true)
        }
        let discoveryLines = { (server: SetteeProcess) in
            server.output.split(separator: "\n").filter { $0.contains("mDNS") || $0.contains("iscovery") }.suffix(20)
                .joined(separator: "\n")
        }
        // One deadline for all six arrivals, so that a room that never forms fails in bounded time.
        let arrivals = Date().addingTimeInterval(45)
        for (index, device) in room.devices.enumerated() {
            for other in room.devices.indices where other != index {
                let left = max(1, arrivals.timeIntervalSinceNow)
                #expect(try DiscoveryTests.waitForDocument(device, local, "from-\(other)", seconds: left),
                        "device \(index) lacks from-\(other):\n\(discoveryLines(servers[index]))")
            }
        }

        // Each device's /_peers: the two others at their link-local addresses with eth0 as
        // zone, syncing both ways, at RFC 6874 URLs (a document can arrive through a third
        // device: each must reach both others itself). Polled: a peer can be found a little later.
        for (index, device) in room.devices.enumerated() {
            let others = room.devices.indices.filter { $0 != index }
            let rows = { () throws -> [JSONValue?] in
                let peers = try DiscoveryTests.call(device, "GET", local + "/_peers?reachable=false")["peers"]?.arrayValue ?? []
                return others.map { other in
                    peers.first { $0["addresses"]?.arrayValue?.contains(.string(linkLocals[other] + "%eth0")) == true }
                }
            }
            let deadline = Date().addingTimeInterval(15)
            var found = try rows()
            while Date() < deadline, found.contains(where: { $0?["replications"]?.arrayValue?.count != 2 }) {
                usleep(200_000)
                found = try rows()
            }
            for (other, row) in zip(others, found) {
                #expect(row?["url"]?.stringValue == "http://[\(linkLocals[other])%25eth0]:5984",
                        "device \(index) on \(other): \(String(describing: row))\n\(discoveryLines(servers[index]))")
                #expect(row?["state"] == "syncing", "\(String(describing: row))")
                #expect(Set(row?["replications"]?.arrayValue?.compactMap { $0["direction"]?.stringValue } ?? []) == ["pull", "push"],
                        "\(String(describing: row))")
            }
        }
    }
}
