internal import FoundationEssentials

/// Base64 as Erlang's `base64:decode/1` reads an attachment's inline `data` (couch_att:from_json
/// decodes it so; a failure is 400 "Invalid attachment data for <name>"). Whitespace is skipped;
/// padding must be exactly what the last group lacks (`aGVsbG8` without it is refused too):
/// CouchDB 3.4.3 refuses `aGVsbG8==` and `notBase64Encoded=` (attachments_test.exs), which
/// Foundation's decoder accepts.
enum StrictBase64 {
    /// The decoded bytes, or nil when Erlang's decoder would refuse `text`.
    static func decode(_ text: String) -> [UInt8]? {
        var symbols: [UInt8] = []
        var padding = 0
        for byte in text.utf8 {
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D: continue
            case UInt8(ascii: "="): padding += 1
            default:
                // A symbol after padding: the padding was not at the end.
                guard padding == 0, isSymbol(byte) else { return nil }
                symbols.append(byte)
            }
        }
        // Exactly the padding the last group lacks: none, one or two `=`.
        guard padding <= 2, (symbols.count + padding) % 4 == 0 else { return nil }
        let padded = symbols + Array(repeating: UInt8(ascii: "="), count: padding)
        return Data(base64Encoded: Data(padded)).map(Array.init)
    }

    private static func isSymbol(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"): true
        default: false
        }
    }
}
