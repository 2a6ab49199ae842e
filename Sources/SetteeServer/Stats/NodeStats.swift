import Synchronization

/// The counters behind `/_node/_local/_stats` and `_prometheus`, named as CouchDB's
/// `couch_stats` names them, for what Settee does: requests by method and status, their
/// times, document reads and writes. One short lock a request.
final class NodeStats: Sendable {
    static let methods = ["COPY", "DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"]
    static let statuses = [200, 201, 202, 204, 206, 301, 302, 304, 400, 401, 403, 404, 405, 406, 409, 412, 413, 414,
                           415, 416, 417, 500, 501, 503]
    /// Request times kept for `request_time`: the last this many.
    static let window = 1024

    struct Counters: Sendable {
        var requests = 0
        var methods = [Int](repeating: 0, count: NodeStats.methods.count)
        var statuses = [Int](repeating: 0, count: NodeStats.statuses.count)
        var documentReads = 0
        var databaseWrites = 0
        var documentWrites = 0
        var documentInserts = 0
        /// Milliseconds, a ring of `window`.
        var times: [Double] = []
        var nextTime = 0
    }

    let started = ContinuousClock.now
    private let counters = Mutex(Counters())

    var snapshot: Counters { counters.withLock { $0 } }
    var uptimeSeconds: Int { Int((ContinuousClock.now - started).components.seconds) }

    /// One answered request.
    func record(method: String, status: Int, milliseconds: Double) {
        let methodIndex = Self.methods.firstIndex(of: method)
        let statusIndex = Self.statuses.firstIndex(of: status)
        counters.withLock { c in
            c.requests += 1
            if let methodIndex { c.methods[methodIndex] += 1 }
            if let statusIndex { c.statuses[statusIndex] += 1 }
            if c.times.count < Self.window { c.times.append(milliseconds) } else { c.times[c.nextTime] = milliseconds }
            c.nextTime = (c.nextTime + 1) % Self.window
        }
    }

    func recordReads(_ count: Int) { counters.withLock { $0.documentReads += count } }

    /// Documents written by one request: one database change, `count` documents, `inserted` of them new.
    func recordWrite(documents count: Int, inserted: Int) {
        counters.withLock { c in
            c.databaseWrites += 1
            c.documentWrites += count
            c.documentInserts += inserted
        }
    }
}
