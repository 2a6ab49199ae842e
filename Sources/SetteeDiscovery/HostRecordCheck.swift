internal import CDNSSD
internal import Glibc

/*
 After `HostNameGuard` renamed the daemon and it settled, checks that the daemon publishes
 the new host name on a network interface, not on loopback alone. avahi-daemon 0.8, renamed
 just as it finished registering the previous name's address records, was seen to keep every
 non-loopback address record under the previous name (`raspberrypi-5.local A 198.18.0.21`,
 its dump after SIGUSR1) while the services' SRV records named the new one: no other host
 could resolve the device, which stayed unheard by all (1 device in about 1 room of 4 sharing
 a host name at N = 20). Renaming once more makes the daemon register its records again, as
 its own collision renames did for every other device of those rooms. Everything here runs
 under the avahi poll's lock (its callbacks, or the caller holding it).
 */
final class HostRecordCheck: @unchecked Sendable {
    // @unchecked: touched only under the avahi poll's lock.
    private var browsers: [OpaquePointer] = []
    private let loopback = if_nametoindex("lo")
    /// A record of the host name seen on an interface other than loopback.
    private(set) var seenOnNetwork = false

    /// Browses the A and AAAA records of `hostName` (a FQDN) on every interface.
    init(client: OpaquePointer, hostName: String) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        for type in [AVAHI_DNS_TYPE_A, AVAHI_DNS_TYPE_AAAA] {
            let browser = avahi_record_browser_new(client, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC),
                                                   hostName, UInt16(AVAHI_DNS_CLASS_IN), UInt16(type), AvahiLookupFlags(0),
                                                   { _, interface, _, event, _, _, _, _, _, _, context in
                guard event == AVAHI_BROWSER_NEW, let context else { return }
                Unmanaged<HostRecordCheck>.fromOpaque(context).takeUnretainedValue().found(on: interface)
            }, context)
            if let browser { browsers.append(browser) }
        }
    }

    /// Whether the browsers could be made (a daemon gone meanwhile: nothing to judge).
    var isBrowsing: Bool { !browsers.isEmpty }

    private func found(on interface: AvahiIfIndex) {
        if interface >= 0, UInt32(interface) != loopback { seenOnNetwork = true }
    }

    /// Ends the browsing (before the check is released).
    func stop() {
        for browser in browsers { avahi_record_browser_free(browser) }
        browsers = []
    }
}
