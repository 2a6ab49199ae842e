import Testing
@testable import SetteeDiscovery

/// A TXT record changed while the daemon probes the service name is held until the daemon
/// confirms the registration: sent during the probes, it made avahi rename the service
/// ("Name #2"), its first name left in every peer's cache answering nothing.
@Suite struct RecordUpdatesTests {
    let before = TXTRecord([(key: "txtvers", value: "1")])
    let after = TXTRecord([(key: "txtvers", value: "1"), (key: "path", value: "/room")])

    @Test func aChangeBeforeTheConfirmationIsHeldThenSentOnce() {
        var updates = RecordUpdates(before)
        updates.registering()
        #expect(updates.change(to: after) == nil)
        #expect(updates.confirmed() == after)
        #expect(updates.confirmed() == nil)
    }

    @Test func aChangeAfterTheConfirmationIsSentAtOnce() {
        var updates = RecordUpdates(before)
        updates.registering()
        #expect(updates.confirmed() == nil)
        #expect(updates.change(to: after) == after)
        #expect(updates.change(to: after) == nil)
    }

    @Test func aRegistrationMadeAfterAChangeCarriesItAndNeedsNoUpdate() {
        var updates = RecordUpdates(before)
        updates.registering()
        #expect(updates.change(to: after) == nil)
        updates.registering()  // registered again (daemon restarted, rename) with the latest record
        #expect(updates.current == after)
        #expect(updates.confirmed() == nil)
    }

    @Test func aChangeBackBeforeTheConfirmationSendsNothing() {
        var updates = RecordUpdates(before)
        updates.registering()
        #expect(updates.change(to: after) == nil)
        #expect(updates.change(to: before) == nil)
        #expect(updates.confirmed() == nil)
    }
}
