/// Database name ↔ file name: bytes in `[a-z0-9_-]` stay, every other byte
/// becomes `%XX` (uppercase hex), and `.couch` is appended. `%` never occurs
/// in a valid database name, so the mapping is reversible; `/` can never
/// reach the file system as a path separator.
enum DatabaseFileName {
    static let suffix = ".couch"

    static func file(for name: String) -> String {
        var file = ""
        for byte in name.utf8 {
            if (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x5F || byte == 0x2D {
                file.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                file += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0x0F)])
            }
        }
        return file + suffix
    }

    /// The database name of a file, nil for files that are not databases.
    static func name(fromFile file: String) -> String? {
        guard file.hasSuffix(suffix) else { return nil }
        var bytes: [UInt8] = []
        var iterator = Array(file.utf8.dropLast(suffix.utf8.count)).makeIterator()
        while let byte = iterator.next() {
            guard byte == 0x25 else { bytes.append(byte); continue }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        let name = String(decoding: bytes, as: UTF8.self)
        return DatabaseDirectory.isValidName(name) ? name : nil
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
