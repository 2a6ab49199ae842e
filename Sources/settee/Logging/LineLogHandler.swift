internal import Foundation
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
    var logLevel: Logger.Level = .info
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

/// The process's buffered stderr.
final class LogSink: Sendable {
    static let shared = LogSink()

    private struct State {
        var pending: [UInt8] = []
        var second = -1
        var stamp = ""
    }
    private let state = Mutex(State())

    private init() {
        let thread = Thread { [self] in
            while true {
                Thread.sleep(forTimeInterval: 0.05)
                flush()
            }
        }
        thread.name = "settee.log"
        thread.start()
    }

    /// UTC to the second, formatted once per second.
    func timestamp() -> String {
        let now = time(nil)
        return state.withLock { s in
            if s.second != now {
                var parts = tm()
                var seconds = now
                gmtime_r(&seconds, &parts)
                s.stamp = String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", parts.tm_year + 1900, parts.tm_mon + 1,
                                 parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec)
                s.second = now
            }
            return s.stamp
        }
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
            let n = bytes[offset...].withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
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
