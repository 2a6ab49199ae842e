@testable import SetteeDiscovery
import Testing

/// `TXTRecordSchedule`: a TXT record changed while the daemon probes a registration is sent
/// only once the daemon confirmed it or its probes are over (avahi took its own probe, carrying the old record, for
/// another host's and renamed the service: `Name #2`, 3–4 devices in a room of 20).
@Suite struct TXTRecordScheduleTests {
    static let first = TXTRecord([("txtvers", "1"), ("uuid", "a")])
    static let second = TXTRecord([("txtvers", "1"), ("uuid", "a"), ("path", "room")])
    static let third = TXTRecord([("txtvers", "1"), ("uuid", "a"), ("path", "room"), ("path", "notes")])

    @Test func aChangeWhileTheDaemonProbesWaitsForTheConfirmation() {
        var schedule = TXTRecordSchedule(Self.first)
        #expect(schedule.registering() == Self.first)
        #expect(schedule.want(Self.second) == nil)
        #expect(schedule.confirmed() == Self.second)
        #expect(schedule.sent == Self.second)
    }

    @Test func aChangeHeldIsSentWhenTheProbesAreOverUnconfirmed() {
        var schedule = TXTRecordSchedule(Self.first)
        _ = schedule.registering()
        #expect(schedule.want(Self.second) == nil)
        #expect(schedule.probesOver() == Self.second)
        #expect(!schedule.isConfirmed)
        #expect(schedule.confirmed() == nil)  // already sent
        #expect(schedule.want(Self.third) == Self.third)
    }

    @Test func aChangeAfterTheConfirmationIsSentAtOnce() {
        var schedule = TXTRecordSchedule(Self.first)
        _ = schedule.registering()
        #expect(schedule.confirmed() == nil)
        #expect(schedule.want(Self.second) == Self.second)
        #expect(schedule.want(Self.second) == nil)  // the same record again: nothing to send
    }

    @Test func onlyTheLastOfSeveralHeldChangesIsSent() {
        var schedule = TXTRecordSchedule(Self.first)
        _ = schedule.registering()
        #expect(schedule.want(Self.second) == nil)
        #expect(schedule.want(Self.third) == nil)
        #expect(schedule.confirmed() == Self.third)
    }

    @Test func aNewRegistrationCarriesTheWantedRecordAndIsUnconfirmed() {
        var schedule = TXTRecordSchedule(Self.first)
        _ = schedule.registering()
        _ = schedule.confirmed()
        _ = schedule.want(Self.second)
        #expect(schedule.registering() == Self.second)
        #expect(!schedule.isConfirmed)
        #expect(schedule.want(Self.third) == nil)
        #expect(schedule.confirmed() == Self.third)
    }

    @Test func aChangedBackRecordNeedsNoUpdate() {
        var schedule = TXTRecordSchedule(Self.first)
        _ = schedule.registering()
        #expect(schedule.want(Self.second) == nil)
        #expect(schedule.want(Self.first) == nil)
        #expect(schedule.confirmed() == nil)
    }
}
