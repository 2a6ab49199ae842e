internal import Synchronization

/// How many client connections one or more `HTTPServer`s hold open right now, for a
/// node's figures (`GET /_node/_local/_system`): the listeners of one node share one.
///
/// A connection counts from the moment it is admitted (under `maxConnections`) until
/// its task has closed it, so the figure is the one the cap is checked against.
public final class ConnectionCount: Sendable {
    private let count = Atomic<Int>(0)

    public init() {}

    /// Connections open now.
    public var value: Int { count.load(ordering: .relaxed) }

    func opened() { count.add(1, ordering: .relaxed) }

    func closed() { count.subtract(1, ordering: .relaxed) }
}
