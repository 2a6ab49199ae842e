/// When a registration's TXT record may be changed: not while the daemon probes it.
///
/// A registration is probed before it is announced (RFC 6762 §8.1), and the probes carry the
/// records in their authority section. avahi hears its own probes back (multicast loopback) and
/// recognises them by comparing their records with its own; a TXT record updated while the
/// probes were out (a server creating its first database as it starts) no longer matches, and
/// avahi takes its own probe for another host's, loses the tie-break to it (§8.2) and
/// renames the service (`Name #2`): in a room of 20 whose daemons were up before the servers,
/// 3–4 devices a room were renamed so and were announced 3–5 s after the others (avahi's
/// debug log: "Received conflicting probe [… TXT "txtvers=1" "uuid=<its own>" …]. Local host
/// lost."). So an update made while the daemon may still be probing waits until it confirms
/// the registration or until the probes are over (`probeWindow` after the registration: three
/// probes 250 ms apart after up to 250 ms, §8.1), whichever comes first: avahi's compat library
/// reported confirmations 2–4 s after the service was announced, and waiting for them alone
/// delayed the databases a room syncs by as much. A value type: `ServicePublisher` owns one
/// and acts on what it answers.
struct TXTRecordSchedule: Equatable {
    /// The record the daemon holds (the registration's, or its last update).
    private(set) var sent: TXTRecord
    /// The record to advertise.
    private(set) var wanted: TXTRecord
    /// Whether the daemon confirmed the current registration.
    private(set) var isConfirmed = false
    /// Whether the current registration's probes are over (confirmed, or `probeWindow` passed).
    private(set) var isProbed = false
    /// How long after a registration its probes are over (RFC 6762 §8.1: the last goes out within 0.75 s).
    static let probeWindow = 1.0

    init(_ record: TXTRecord) {
        sent = record
        wanted = record
    }

    /// A registration is made: it carries the wanted record, unconfirmed.
    mutating func registering() -> TXTRecord {
        sent = wanted
        isConfirmed = false
        isProbed = false
        return wanted
    }

    /// The record to advertise changed: the update to send now, or nil (none needed, or not
    /// while the daemon may be probing the registration).
    mutating func want(_ record: TXTRecord) -> TXTRecord? {
        wanted = record
        return due()
    }

    /// The daemon confirmed the registration: the update held meanwhile, if any.
    mutating func confirmed() -> TXTRecord? {
        isConfirmed = true
        isProbed = true
        return due()
    }

    /// `probeWindow` has passed since the registration: the update held meanwhile, if any.
    mutating func probesOver() -> TXTRecord? {
        isProbed = true
        return due()
    }

    private mutating func due() -> TXTRecord? {
        guard isProbed, wanted != sent else { return nil }
        sent = wanted
        return wanted
    }
}
