/// RFC 3986 §2.1 percent-decoding into UTF-8 text.
public enum PercentDecoding {
    /// Decodes `text`; nil on a bad `%XX` or bytes that are not UTF-8.
    public static func decode(_ text: some StringProtocol, plusAsSpace: Bool) -> String? {
        // Most ids and parameters have nothing to decode: the text is already valid UTF-8.
        if !text.utf8.contains(where: { $0 == UInt8(ascii: "%") || (plusAsSpace && $0 == UInt8(ascii: "+")) }) {
            return String(text)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var it = text.utf8.makeIterator()
        while let b = it.next() {
            if b == UInt8(ascii: "%") {
                guard let h = it.next().flatMap(hexValue), let l = it.next().flatMap(hexValue) else { return nil }
                bytes.append(h << 4 | l)
            } else if b == UInt8(ascii: "+") && plusAsSpace {
                bytes.append(UInt8(ascii: " "))
            } else {
                bytes.append(b)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Encodes everything but letters, digits and `symbols` (by default RFC 3986's
    /// unreserved set; CouchDB's `couch_util:url_encode` keeps `:` instead of `~`).
    public static func encode(_ text: String, keeping symbols: String = "-._~") -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for b in text.utf8 {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"):
                out.unicodeScalars.append(Unicode.Scalar(b))
            case _ where symbols.utf8.contains(b):
                out.unicodeScalars.append(Unicode.Scalar(b))
            default:
                out += "%" + String(b >> 4, radix: 16, uppercase: true) + String(b & 0xF, radix: 16, uppercase: true)
            }
        }
        return out
    }

    /// The value of one hexadecimal digit, either case (also the key log's secrets, TLS13SecretCapture).
    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
