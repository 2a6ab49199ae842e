/// DNS-SD TXT record data (RFC 6763 §6): a sequence of strings, each one length
/// byte then `key=value` (or a bare `key`). Read as RFC 6763 says a client must:
/// keys are case-insensitive, a key seen again is ignored (§6.4), an empty
/// string or one starting with `=` is skipped (§6.4), and bytes past a bad
/// length are dropped rather than trusted. Other software's records arrive here,
/// so nothing in them may stop the reader.
public struct TXTRecord: Sendable, Equatable {
    /// The entries in order; a nil value is a key given without `=`.
    public private(set) var entries: [(key: String, value: String?)]

    public init(_ entries: [(key: String, value: String?)] = []) { self.entries = entries }

    public static func == (lhs: TXTRecord, rhs: TXTRecord) -> Bool {
        lhs.entries.map(\.key) == rhs.entries.map(\.key) && lhs.entries.map(\.value) == rhs.entries.map(\.value)
    }

    /// The largest TXT data this writer produces: what fits an mDNS packet with room
    /// to spare (RFC 6763 §6.2 suggests staying under 1300 bytes; 8900 is its ceiling).
    public static let maxBytes = 8900

    /// The first value of `key` (case-insensitive); nil if absent or valueless.
    public subscript(key: String) -> String? {
        let wanted = key.lowercased()
        return entries.first { $0.key.lowercased() == wanted }?.value ?? nil
    }

    /// Every value given for `key`, in order: Settee's profile repeats `path`.
    public func values(_ key: String) -> [String] {
        let wanted = key.lowercased()
        return entries.filter { $0.key.lowercased() == wanted }.compactMap(\.value)
    }

    public mutating func append(_ key: String, _ value: String?) { entries.append((key, value)) }

    /// The wire form. An entry longer than 255 bytes cannot be written and is left
    /// out, as is anything past `maxBytes`.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        for entry in entries {
            let text = Array((entry.value.map { entry.key + "=" + $0 } ?? entry.key).utf8)
            guard !entry.key.isEmpty, text.count <= 255, out.count + 1 + text.count <= Self.maxBytes else { continue }
            out.append(UInt8(text.count))
            out.append(contentsOf: text)
        }
        return out
    }

    /// Reads wire data leniently (see the type's comment).
    public init(bytes: [UInt8]) {
        var entries: [(key: String, value: String?)] = []
        var seen: Set<String> = []
        var index = 0
        while index < bytes.count {
            let length = Int(bytes[index])
            index += 1
            guard index + length <= bytes.count else { break }  // a length past the end: the rest is not trusted
            let string = bytes[index..<(index + length)]
            index += length
            guard let first = string.first, first != UInt8(ascii: "=") else { continue }
            let equals = string.firstIndex(of: UInt8(ascii: "="))
            let key = String(decoding: string[..<(equals ?? string.endIndex)], as: UTF8.self)
            let value = equals.map { String(decoding: string[($0 + 1)...], as: UTF8.self) }
            // Repeats are kept for `path`, the one key Settee's profile repeats; RFC 6763's
            // first-occurrence rule holds for every other key.
            let lower = key.lowercased()
            if lower != "path" && seen.contains(lower) { continue }
            seen.insert(lower)
            entries.append((key, value))
        }
        self.entries = entries
    }
}
