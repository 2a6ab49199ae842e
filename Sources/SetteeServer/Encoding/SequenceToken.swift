/// Update sequences on the wire as CouchDB 3 shapes them: `"<n>-<opaque>"`,
/// where `n` counts the changes (clients and tools read the number before the
/// dash) and the rest is opaque. CouchDB's opaque part is an encoded term of
/// its shards' positions; Settee's is 16 base64url characters of a 4-byte tag
/// and `n`, so a token can be checked: `since` takes Settee's tokens, plain
/// integers (Settee's earlier seqs, and CouchDB 1.x's) and `now`, and refuses
/// anything else as CouchDB does ("Malformed sequence").
enum SequenceToken {
    private static let tag: [UInt8] = Array("Stee".utf8)
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The token for `n`, unquoted.
    static func string(_ n: Int64) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(40)
        appendUnquoted(n, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the token for `n` as a JSON string, quotes included.
    static func write(_ n: Int64, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        appendUnquoted(n, to: &out)
        out.append(UInt8(ascii: "\""))
    }

    static func json(_ n: Int64) -> String { "\"" + string(n) + "\"" }

    private static func appendUnquoted(_ n: Int64, to out: inout [UInt8]) {
        out.append(contentsOf: String(n).utf8)
        out.append(UInt8(ascii: "-"))
        var raw = tag
        for shift in stride(from: 56, through: 0, by: -8) { raw.append(UInt8(truncatingIfNeeded: UInt64(bitPattern: n) >> UInt64(shift))) }
        // 12 bytes: four 3-byte groups, 16 characters, no padding.
        for group in stride(from: 0, to: 12, by: 3) {
            let word = UInt32(raw[group]) << 16 | UInt32(raw[group + 1]) << 8 | UInt32(raw[group + 2])
            for shift in [18, 12, 6, 0] { out.append(alphabet[Int((word >> UInt32(shift)) & 63)]) }
        }
    }

    /// The change count a `since` or `Last-Event-ID` names: a token of Settee's
    /// (quoted or not), or a plain non-negative integer; nil for anything else.
    static func parse(_ text: String) -> Int64? {
        var text = Substring(text)
        if text.count >= 2, text.first == "\"", text.last == "\"" { text = text.dropFirst().dropLast() }
        if let n = Int64(text), n >= 0, text.utf8.first != UInt8(ascii: "+") { return n }
        guard let dash = text.firstIndex(of: "-"), let n = Int64(text[..<dash]), n >= 0 else { return nil }
        return string(n) == text ? n : nil
    }
}
