/*
 How soon `ServiceBrowser` resolves again an instance that gave no address. A renamed
 service ("Name #2") can leave its first name browsable while nothing answers for it, and
 each resolution opens three refs (the resolve, the A and the AAAA query), each a D-Bus
 connection of its own in avahi's compat library: retried every 2 + 10 s for ever, five
 such names made every device of an idle room of 20 spend half again its CPU on D-Bus
 (bench/RESULTS.md, "Quiet-machine figures at the session's end, and an idle room that
 costs more"). So each miss in a row doubles the wait, up to `longest`; an answer starts
 again from `first`. A peer that does appear later is still met within `longest`.
 */
enum ResolveRetry {
    static let first = 2.0
    static let longest = 60.0

    /// Seconds to wait before resolving again after `misses` openings in a row with no address.
    static func delay(afterMisses misses: Int) -> Double {
        min(longest, first * Double(1 << min(max(misses - 1, 0), 10)))
    }
}

extension ServiceBrowser {
    /// A token for the address query's ref (the loop keys refs by object).
    final class AddressQuery {}
}
