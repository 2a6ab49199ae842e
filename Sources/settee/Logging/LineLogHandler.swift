internal import Dispatch
internal import Glibc
internal import FoundationEssentials
internal import Logging
internal import Synchronization

/// A swift-log handler writing one line per event to stderr:
/// `2026-11-23T10:41:51Z info [label] key=value message`.
///
/// Why not `StreamLogHandler`: the access log writes a line per request, and the
/// stock handler formats a local timestamp with `strftime` and does a `write(2)`
/// per line under a lock; on two cores that cost a third of `GET` throughput
/// (bench/RESULTS.md). Here lines go into a shared buffer that a background
/// thread writes out every 50 ms; warnings and worse are written at once, so a
/// problem is on screen before anything else can go wrong.
struct LineLogHandler: LogHandler {
    let label: String
    /// One level for the whole process, `[log] level`, changeable while it runs.
    var logLevel: Logger.Level {
        get { Logger.Level.allCases[Self.level.load(ordering: .relaxed)] }
        set { Self.level.store(Logger.Level.allCases.firstIndex(of: newValue) ?? 2, ordering: .relaxed) }
    }
    static let level = Atomic<Int>(Logger.Level.allCases.firstIndex(of: .info) ?? 2)

    /// Sets the level by CouchDB's name for it (`couch_log_util:level_to_atom`); false if unknown.
    static func setLevel(couchName: String) -> Bool {
        let levels: [String: Logger.Level] = [
            "trace": .trace, "debug": .debug, "info": .info, "notice": .notice, "warning": .warning, "warn": .warning,
            "error": .error, "err": .error, "critical": .critical, "crit": .critical, "alert": .critical,
            "emergency": .critical, "none": .critical,
        ]
        guard let level = levels[couchName.lowercased()] else { return false }
        Self.level.store(Logger.Level.allCases.firstIndex(of: level) ?? 2, ordering: .relaxed)
        return true
    }
    var metadata: Logger.Metadata = [:] {
        didSet { renderedMetadata = Self.render(metadata) }
    }
    /// `metadata` as the line shows it, rendered when it is set rather than per line
    /// (a connection's logger carries `peer` into every access-log line).
    private var renderedMetadata: [UInt8] = []

    init(label: String) { self.label = label }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// The line is built as bytes in one buffer: the access log runs this for every
    /// request, and string interpolation plus sorting a one-entry dictionary cost
    /// about 5 % of a `GET`'s CPU.
    func log(event: LogEvent) {
        var text: [UInt8] = []
        text.reserveCapacity(160)
        text.append(utf8: LogSink.shared.timestamp())
        text.append(UInt8(ascii: " "))
        text.append(utf8: event.level.rawValue)
        text.append(UInt8(ascii: " "))
        if let extra = event.metadata, !extra.isEmpty {
            text += Self.render(metadata.merging(extra) { $1 })
        } else {
            text += renderedMetadata
        }
        text.append(UInt8(ascii: "["))
        text.append(utf8: event.source)
        text.append(contentsOf: "] ".utf8)
        text.append(utf8: event.message.description)
        text.append(UInt8(ascii: "\n"))
        LogSink.shared.append(text, immediately: event.level >= .warning)
    }

    /// `key=value ` for each entry, by key.
    private static func render(_ metadata: Logger.Metadata) -> [UInt8] {
        var text: [UInt8] = []
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) { text += "\(key)=\(value) ".utf8 }
        return text
    }
}

/// The process's buffered log stream: stderr, or stdout (`[log] stream`).
final class LogSink: Sendable {
    static let shared = LogSink()
    /// The file descriptor lines go to.
    let descriptor = Atomic<Int32>(2)

    private struct State {
        var pending: [UInt8] = []
        var second = -1
        var stamp = ""
    }
    private let state = Mutex(State())

    private init() {
        DispatchQueue(label: "settee.log").async { [self] in
            while true {
                usleep(50_000)
                flush()
            }
        }
    }

    /// UTC to the second, formatted once per second.
    func timestamp() -> String {
        let now = time(nil)
        return state.withLock { s in
            if s.second != now {
                var parts = tm()
                var seconds = now
                gmtime_r(&seconds, &parts)
                s.stamp = Self.digits(Int(parts.tm_year) + 1900, 4) + "-" + Self.digits(Int(parts.tm_mon) + 1) + "-" + Self.digits(Int(parts.tm_mday))
                    + "T" + Self.digits(Int(parts.tm_hour)) + ":" + Self.digits(Int(parts.tm_min)) + ":" + Self.digits(Int(parts.tm_sec)) + "Z"
                s.second = now
            }
            return s.stamp
        }
    }

    /// `value` in decimal, zero-padded to `width`.
    static func digits(_ value: Int, _ width: Int = 2) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    func append(_ line: [UInt8], immediately: Bool) {
        state.withLock { $0.pending.append(contentsOf: line) }
        if immediately { flush() }
    }

    /// Writes out what is buffered; also called at exit.
    func flush() {
        let bytes = state.withLock { s -> [UInt8] in
            defer { s.pending.removeAll(keepingCapacity: true) }
            return s.pending
        }
        var offset = 0
        while offset < bytes.count {
            let fd = descriptor.load(ordering: .relaxed)
            let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n <= 0 { return }
            offset += n
        }
    }
}

extension [UInt8] {
    /// Appends `text`'s UTF-8 as one copy of its contiguous bytes (appending a
    /// `String.UTF8View` goes through the generic sequence path, per log line).
    fileprivate mutating func append(utf8 text: String) {
        var text = text
        text.withUTF8 { append(contentsOf: $0) }
    }
}
