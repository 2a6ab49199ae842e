/// The text work of URLs and header lines, done on UTF-8 bytes (Foundation's
/// NSString versions would link its locale machinery into the binary).
public enum URLText {
    /// RFC 3986's unreserved bytes, ASCII only.
    public static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// Everything but unreserved bytes as `%XX`.
    public static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            if isUnreserved(byte) { out.unicodeScalars.append(Unicode.Scalar(byte)) } else { out += "%" + hex([byte], uppercase: true) }
        }
        return out
    }

    /// `%XX` sequences decoded; nil for a broken one or bytes that are not UTF-8.
    public static func percentDecoded(_ text: some StringProtocol) -> String? {
        var bytes: [UInt8] = []
        var input = text.utf8.makeIterator()
        while let byte = input.next() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard let high = input.next().flatMap(nibble), let low = input.next().flatMap(nibble) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Two hex digits a byte.
    public static func hex(_ bytes: some Sequence<UInt8>, uppercase: Bool = false) -> String {
        let digits = Array((uppercase ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
        var out = ""
        for byte in bytes {
            out.unicodeScalars.append(Unicode.Scalar(digits[Int(byte >> 4)]))
            out.unicodeScalars.append(Unicode.Scalar(digits[Int(byte & 0xF)]))
        }
        return out
    }

    /// Without leading and trailing spaces, tabs, CRs and LFs.
    public static func trimmed(_ text: some StringProtocol) -> String {
        let isBlank = { (c: Character) in c == " " || c == "\t" || c == "\r" || c == "\n" || c == "\r\n" }
        guard let first = text.firstIndex(where: { !isBlank($0) }), let last = text.lastIndex(where: { !isBlank($0) }) else {
            return ""
        }
        return String(text[first...last])
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces, tabs, CRs and LFs (`URLText.trimmed`).
    public func trimmingBlanks() -> String { URLText.trimmed(self) }
}
