internal import Dispatch

/// Removals the browser heard, held `grace` seconds before they count as departures.
///
/// A service registered again is withdrawn and announced anew: the goodbye of the registration
/// it replaced (RFC 6762 §10.1: TTL 0, flushed from caches a second later) and the new one's
/// announcement arrive within a second or two of each other. In a room of 20 at load 25, a
/// device whose registration avahi had not confirmed within `ServicePublisher.confirmWithin`
/// registered again; each of its 19 peers then saw it leave and come back, and dropped and
/// restarted their replications with it, and the device saw its own service "vanish" and
/// registered it again (`NodeDiscovery`'s own-service check), twice. An instance that comes back
/// within the grace never left; one that stays gone is reported that much later (a device
/// that leaves without a goodbye is seen gone only when its records expire, far later).
///
final class VanishGrace: @unchecked Sendable {
    // @unchecked: touched only on the loop thread (the timer hops back onto it).
    let grace: Double
    /// Instances heard removed and not back yet: the token of the check that will report them.
    private var pending: [String: Int] = [:]
    private var tokens = 0

    init(grace: Double) {
        self.grace = grace
    }

    /// `instance` was heard removed from every interface: after the grace, on `loop`, `depart`
    /// runs unless it came back meanwhile (`returned`) or `isBack` says it is known again.
    func vanished(_ instance: String, on loop: DNSSDLoop, isBack: @escaping @Sendable () -> Bool,
                  depart: @escaping @Sendable () -> Void) {
        tokens += 1
        let token = tokens
        pending[instance] = token
        DispatchQueue.global().asyncAfter(deadline: .now() + grace) { [self] in loop.perform { [self] in
            guard pending[instance] == token else { return }
            pending[instance] = nil
            if !isBack() { depart() }
        } }
    }

    /// `instance` was heard added again: a removal pending for it does not count.
    func returned(_ instance: String) {
        pending[instance] = nil
    }

    /// Whether a removal of `instance` is being held.
    func isPending(_ instance: String) -> Bool { pending[instance] != nil }
}
