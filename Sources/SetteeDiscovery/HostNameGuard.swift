internal import CDNSSD
internal import Dispatch
internal import Logging
internal import Synchronization

/*
 Several hosts that start together with one host name (every Raspberry Pi is
 `raspberrypi`, every container of one image has the same name) probe for it at once.
 avahi-daemon 0.8 breaks the tie record by record (avahi-core/server.c, incoming_probe: a
 host withdraws if any one of its records compares lower than the other's), not by
 comparing the sorted sets of records as RFC 6762 §8.2 says. A host name has an A and an
 AAAA record (avahi publishes AAAA over IPv4 too), so when the host with the highest IPv4
 address is not the one with the highest IPv6 address, every prober loses, all rename to
 the same next name (`raspberrypi-2`, `-3`, ...) at the same moment, and lose again: a
 daemon that never settles never publishes a service (dns_sd registrations wait for it),
 and the room saw only 3–5 of 10 devices. This guard watches the daemon's state through
 avahi's client API and, after `collisionsBeforeActing` host-name collisions in a row, asks it
 for a name of its own (`raspberrypi-3f9a0c`: random, so the probers are no longer in step);
 `HostStateWatch` reads the states.
 avahi lets only root and the `netdev` group set the host name; otherwise it says once
 what to change. A daemon that settles after one rename is left alone. The services take the
 same suffix (`ServicePublisher.distinguish`): their instance names are shared too, and
 avahi renames those in step the same way. When the daemon runs again after renaming its host,
 browsing starts over (`ServiceBrowser.browseAgain`): a service announced while the daemon
 was re-probing its own name was missed for good in 2 of 7 six-device rooms before (none in 5 since).
 Shortly after, `HostRecordCheck` makes sure the daemon publishes the new name on the network.
 */
final class HostNameGuard: @unchecked Sendable {
    // @unchecked: the mutable state is touched only under the avahi poll's lock (its
    // callbacks, or a pending rename or record check that takes the lock).
    private let logger: Logger
    /// Told the suffix of each name the guard gave the daemon (on avahi's thread).
    private let onRename: @Sendable (String) -> Void
    /// Told when the daemon runs again after renaming its host (on avahi's thread).
    private let onSettled: @Sendable () -> Void
    /// The daemon's states as read so far (on avahi's thread).
    private var watch = HostStateWatch()
    private let poll: OpaquePointer?
    private var client: OpaquePointer?
    private var told = false
    /// The check of the records of the name the guard gave last, while it runs.
    private var recordCheck: HostRecordCheck?
    /// Renames made because a renamed daemon published its name on loopback only.
    private var repairs = 0
    static let maxRepairs = 2
    /// Long enough for the daemon's own records to be listed (they are local: at once).
    static let recordCheckAfter = 2.5
    /// Set by `stop`; a pending rename holds it while it uses the client.
    private let stopped = Mutex(false)

    init(logger: Logger, onRename: @escaping @Sendable (String) -> Void, onSettled: @escaping @Sendable () -> Void) {
        self.logger = logger
        self.onRename = onRename
        self.onSettled = onSettled
        poll = avahi_threaded_poll_new()
        guard let poll else { return }
        var error: Int32 = 0
        // NO_FAIL: a daemon not there yet (or restarting) is waited for, not given up on.
        client = avahi_client_new(avahi_threaded_poll_get(poll), AVAHI_CLIENT_NO_FAIL, { client, state, context in
            guard let context, let client else { return }
            Unmanaged<HostNameGuard>.fromOpaque(context).takeUnretainedValue().changed(state, client)
        }, Unmanaged.passUnretained(self).toOpaque(), &error)
        // No D-Bus at all: the publisher says so; nothing to guard.
        guard client != nil else { return }
        avahi_threaded_poll_start(poll)
    }

    /// Ends the client and its thread (call before the guard is released).
    func stop() {
        guard let poll else { return }
        stopped.withLock { $0 = true }  // after a pending rename, if one is under way
        avahi_threaded_poll_stop(poll)
        recordCheck?.stop()
        recordCheck = nil
        if let client { avahi_client_free(client) }
        client = nil
        avahi_threaded_poll_free(poll)
    }

    /// On avahi's thread: renames after collisions in a row, and says when the daemon settled.
    private func changed(_ state: AvahiClientState, _ client: OpaquePointer) {
        switch state {
        case AVAHI_CLIENT_S_RUNNING:
            guard let settling = watch.running() else { return }
            onSettled()
            if settling == .afterRename { checkRecords(client) }
        case AVAHI_CLIENT_S_REGISTERING:
            watch.registering()
        case AVAHI_CLIENT_S_COLLISION:
            if watch.collided() { renameUnlessSettled(client) }
        default: break
        }
    }

    /// Renames after a short random pause, unless the daemon settled meanwhile: one renamed by
    /// hand while running (its state signal not yet read here) was seen to stay unheard by
    /// the others after its new name was established (1 device in 10, 3 rooms in 9).
    private func renameUnlessSettled(_ client: OpaquePointer) {
        // Long enough for a RUNNING signal to arrive when the daemon settled (probing takes 0.75 s).
        let pause = Double.random(in: 1.2...2.0)
        let box = UncheckedBox(client), seen = watch.settlings
        DispatchQueue.global().asyncAfter(deadline: .now() + pause) { [self] in
            stopped.withLock { stopped in
                guard !stopped, let poll = self.poll else { return }
                avahi_threaded_poll_lock(poll)
                defer { avahi_threaded_poll_unlock(poll) }
                guard watch.settlings == seen, avahi_client_get_state(box.value) != AVAHI_CLIENT_S_RUNNING else { return }
                rename(box.value, because: "its host name collided \(HostStateWatch.collisionsBeforeActing) times in a row (hosts of one name starting together)")
            }
        }
    }

    /// After the daemon settled under a name the guard gave it: if, shortly after, it publishes
    /// that name on no network interface (`HostRecordCheck`), asks for another name.
    private func checkRecords(_ client: OpaquePointer) {
        recordCheck?.stop()
        recordCheck = nil
        guard repairs < Self.maxRepairs, let fqdn = avahi_client_get_host_name_fqdn(client).map({ String(cString: $0) }) else {
            return
        }
        let check = HostRecordCheck(client: client, hostName: fqdn)
        guard check.isBrowsing else { return }
        recordCheck = check
        let box = UncheckedBox(client), settled = watch.settlings
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.recordCheckAfter) { [self] in
            stopped.withLock { stopped in
                guard !stopped, let poll = self.poll, recordCheck === check else { return }
                avahi_threaded_poll_lock(poll)
                defer { avahi_threaded_poll_unlock(poll) }
                check.stop()
                recordCheck = nil
                guard !check.seenOnNetwork, watch.settlings == settled,
                      avahi_client_get_state(box.value) == AVAHI_CLIENT_S_RUNNING else { return }
                repairs += 1
                rename(box.value, because: "it ran as \(fqdn) but published that name on no network interface (renamed while registering its previous name's addresses, it kept them under that name)")
            }
        }
    }

    /// Asks the daemon for a name of its own; `reason` says why, in the log.
    private func rename(_ client: OpaquePointer, because reason: String) {
        let current = avahi_client_get_host_name(client).map { String(cString: $0) } ?? "settee"
        let name = Self.nameOfItsOwn(from: current)
        let status = avahi_client_set_host_name(client, name)
        if status == AVAHI_OK {
            // The RUNNING after the daemon's REGISTERING for it is the settling (the services register again then).
            watch.renameAsked()
            logger.info("mDNS: asked avahi-daemon to use the host name \"\(name)\": \(reason)")
            onRename(String(name.suffix(6)))
        } else if !told {
            told = true
            let reason = String(cString: avahi_strerror(status))
            logger.warning("mDNS: avahi-daemon keeps renaming this host (\"\(current)\"): other hosts of the same name are probing in step, and until it settles nothing is published. Settee cannot give it a name of its own (\(reason): avahi allows root and the netdev group); give this host a distinct name, or set publish-aaaa-on-ipv4=no in avahi-daemon.conf")
        }
    }

    /// `raspberrypi-4` → `raspberrypi-3f9a0c`: avahi's numeric suffix replaced by a random one.
    static func nameOfItsOwn(from current: String) -> String {
        var base = Substring(current)
        if let dash = base.lastIndex(of: "-"), base[base.index(after: dash)...].allSatisfy(\.isNumber),
           dash != base.startIndex, base.index(after: dash) != base.endIndex {
            base = base[..<dash]
        }
        // A DNS label is at most 63 bytes: the base keeps what fits beside "-" and six digits.
        var kept = ""
        for character in base {
            guard kept.utf8.count + character.utf8.count <= 63 - 7 else { break }
            kept.append(character)
        }
        let suffix = String(UInt32.random(in: 0...0xFF_FFFF), radix: 16)
        return kept + "-" + String(repeating: "0", count: 6 - suffix.count) + suffix
    }
}

/// An avahi client pointer carried to the pause's closure (used there under the poll's lock).
private struct UncheckedBox: @unchecked Sendable {
    let value: OpaquePointer
    init(_ value: OpaquePointer) { self.value = value }
}
