import Synchronization

/// The `X-Couch-Request-ID` of a response, as `chttpd:nonce/1` picks it: the
/// client's own `X-Couch-Request-ID` when it is at most 36 characters of
/// `[0-9A-Za-z_-]`, else 10 fresh hex digits. Fresh ids come from a counter
/// scrambled with a per-process salt: unique within a run, unpredictable enough
/// for log correlation, and no system call on the request path.
enum RequestID {
    private static let counter = Atomic<UInt64>(0)
    private static let salt = UInt64.random(in: .min ... .max)

    static func forRequest(header: String?) -> String {
        if let header, !header.isEmpty, header.utf8.count <= 36, header.utf8.allSatisfy(isNonceByte) {
            return header
        }
        return fresh()
    }

    static func fresh() -> String {
        let n = counter.add(1, ordering: .relaxed).newValue
        let mixed = splitMix(n ^ salt) & 0xFF_FFFF_FFFF  // 40 bits: 10 hex digits, as CouchDB's 5 bytes
        let hex = String(mixed, radix: 16)
        return String(repeating: "0", count: 10 - hex.count) + hex
    }

    private static func isNonceByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }

    /// SplitMix64's finaliser: consecutive counters give unrelated-looking ids.
    private static func splitMix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
