internal import CJavaScriptCore
internal import Glibc
internal import Synchronization

/// What one call into a design document function may take: CouchDB's
/// `[couchdb] os_process_timeout` (5 s) and its JavaScript engine's memory limit
/// (`[quickjs] memory_limit_bytes`, 64 MiB by default there too).
public struct JavaScriptLimits: Sendable, Equatable {
    public var time: Double
    public var memoryBytes: Int
    /// `[query_server_config] reduce_limit`: whether a JavaScript reduce whose output does
    /// not shrink is an error (`true`, CouchDB's default), only logged (`log`) or let be.
    public var reduceLimit: ReduceLimit

    public enum ReduceLimit: String, Sendable {
        case on = "true"
        case log
        case off = "false"
    }

    public init(time: Double = 5.0, memoryBytes: Int = 64 << 20, reduceLimit: ReduceLimit = .on) {
        self.time = time
        self.memoryBytes = memoryBytes
        self.reduceLimit = reduceLimit
    }
}

/// One node's limits, shared by its engines: set from the server's configuration (and
/// the config API), read by each engine at the start of each call. One per node, not
/// per process: two nodes in one process (tests) keep their own.
public final class JavaScriptLimitsSetting: Sendable {
    private let current: Mutex<JavaScriptLimits>

    public init(_ limits: JavaScriptLimits = JavaScriptLimits()) { current = Mutex(limits) }

    /// The limits new calls get.
    public var value: JavaScriptLimits {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }
}

/// Watches one engine's running call (its JavaScriptCore calls, `arm` and `heapBytes`,
/// are in JavaScriptEngine.swift: the table of the library's functions that
/// `settee_jsc_load` fills is one per object file, and that file's is the filled one): JavaScriptCore calls `check` every `interval`
/// of execution (its execution-time limit, re-armed each time the check lets the
/// script go on), and the check stops the script once the call has run past its time
/// or its heap has grown past its memory limit. Used only under the engine's lock.
final class JavaScriptWatch {
    enum Stop { case time, memory }

    /// How often a running script is looked at: a memory bomb grows by at most what it
    /// allocates in this long past the limit.
    static let interval = 0.02

    var started = timespec()
    var limits = JavaScriptLimits()
    private(set) var stopped: Stop?
    /// Whether any call so far was stopped.
    private(set) var hasStopped = false
    /// The engine's context group, whose execution-time limit is the watch's timer.
    var group: JSContextGroupRef?

    func begin(_ limits: JavaScriptLimits) {
        self.limits = limits
        stopped = nil
        clock_gettime(CLOCK_MONOTONIC, &started)
    }

    /// Marks the call stopped for `reason` (the allocation guards refused it memory).
    func stop(_ reason: Stop) {
        stopped = reason
        hasStopped = true
    }

    /// Whether the script must stop now.
    func check(_ context: JSContextRef) -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let elapsed = Double(now.tv_sec - started.tv_sec) + Double(now.tv_nsec - started.tv_nsec) / 1e9
        if elapsed >= limits.time {
            stopped = .time
            hasStopped = true
            return true
        }
        if Self.heapBytes(context) > limits.memoryBytes {
            stopped = .memory
            hasStopped = true
            return true
        }
        return false
    }

    /// The message for a call this watch stopped.
    var message: String? {
        switch stopped {
        // CouchDB's words for its query server's timeout (os_process_error).
        case .time?: "OS process timed out."
        case .memory?: "OS process exceeded its memory limit (\(limits.memoryBytes) bytes)."
        case nil: nil
        }
    }
}
