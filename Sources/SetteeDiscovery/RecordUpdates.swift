/*
 When `ServicePublisher` hands the daemon a changed TXT record. While avahi probes the service
 name (about a second after each registration), a record changed under it makes avahi take
 its own probe, looped back with the record from before the change, for another host's
 ("Received conflicting probe ... Local host lost"): it renames the service ("Name #2"), and
 the first name stays in the peers' caches, browsable but answering nothing, resolved again
 and again by every peer (bench/RESULTS.md, "An idle room that costs more"). So a change is
 held until the daemon confirms the registration (its probes are over), then sent once; a
 registration made meanwhile carries the latest record and needs none.
 */
struct RecordUpdates {
    /// The record to advertise.
    private(set) var current: TXTRecord
    /// The record the daemon holds (registered with, or last updated to).
    private(set) var sent: TXTRecord
    private var isConfirmed = false

    init(_ record: TXTRecord) {
        current = record
        sent = record
    }

    /// A registration with `current` is made: it waits for the daemon's confirmation.
    mutating func registering() {
        sent = current
        isConfirmed = false
    }

    /// The record changed: what to send the daemon now, or nil (unchanged, or held).
    mutating func change(to record: TXTRecord) -> TXTRecord? {
        current = record
        return due()
    }

    /// The daemon confirmed the registration: a change held meanwhile, to send now, or nil.
    mutating func confirmed() -> TXTRecord? {
        isConfirmed = true
        return due()
    }

    private mutating func due() -> TXTRecord? {
        guard isConfirmed, sent != current else { return nil }
        sent = current
        return current
    }
}
