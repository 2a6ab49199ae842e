import FoundationEssentials
import Synchronization

/// `[uuids] algorithm`, as CouchDB's `couch_uuids` makes them for `GET /_uuids` and
/// the ids of documents POSTed without one: `sequential` (CouchDB's default: 26 random
/// hex digits, then a 6-digit counter stepping by 1–4093, a new prefix when it passes
/// 0xfff000), `random` (32 random hex digits), `utc_random` (14 hex digits of
/// microseconds since 1970, then 18 random ones) and `utc_id` (the microseconds, then
/// `utc_id_suffix`). The microsecond clock never goes back: a lagging one counts on.
final class UUIDGenerator: Sendable {
    enum Algorithm: String, Sendable, CaseIterable { case sequential, random, utc_random, utc_id }

    private struct State {
        var algorithm: Algorithm = .sequential
        var utcIDSuffix = ""
        var prefix = UUIDGenerator.randomHex(13)
        var counter = UUIDGenerator.step()
        var clock: Int64 = 0
    }
    private let state = Mutex(State())

    var algorithm: Algorithm { state.withLock { $0.algorithm } }

    /// Starts afresh with `algorithm` and/or `utcIDSuffix` (nil: unchanged), as CouchDB
    /// does on any `[uuids]` change.
    func configure(algorithm: Algorithm? = nil, utcIDSuffix: String? = nil) {
        state.withLock { s in
            s = State(algorithm: algorithm ?? s.algorithm, utcIDSuffix: utcIDSuffix ?? s.utcIDSuffix)
        }
    }

    func next() -> String {
        state.withLock { s in
            switch s.algorithm {
            case .random:
                return Self.randomHex(16)
            case .sequential:
                let id = s.prefix + Self.hex(Int64(s.counter), width: 6)
                if s.counter >= 0xfff000 {
                    s.prefix = Self.randomHex(13)
                    s.counter = Self.step()
                } else {
                    s.counter += Self.step()
                }
                return id
            case .utc_random, .utc_id:
                let micros = Int64(Date().timeIntervalSince1970 * 1_000_000)
                s.clock = micros <= s.clock ? s.clock + 1 : micros
                return Self.hex(s.clock, width: 14) + (s.algorithm == .utc_id ? s.utcIDSuffix : Self.randomHex(9))
            }
        }
    }

    private static func step() -> Int { Int.random(in: 1...0xffd) }

    static func randomHex(_ bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in hex(Int64(UInt8.random(in: 0...255, using: &generator)), width: 2) }.joined()
    }

    static func hex(_ value: Int64, width: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
