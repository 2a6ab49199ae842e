internal import FoundationEssentials

/// The MD5 of an attachment's stored bytes: both its blob-store key and the
/// `digest` CouchDB shows in stubs (`"md5-<base64 of MD5>"`).
///
/// CouchDB digests the bytes as stored, so for an attachment kept gzip'd the digest
/// is the MD5 of the compressed bytes (docs.couchdb.org, Document API,
/// "Attachments": `digest`). Two attachments with the same stored bytes share one
/// blob.
public struct AttachmentDigest: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The 16 MD5 bytes.
    public let md5: [UInt8]

    /// A digest from 16 raw MD5 bytes; nil for any other length.
    public init?(md5: [UInt8]) {
        guard md5.count == 16 else { return nil }
        self.md5 = md5
    }

    /// Parses CouchDB's form, `md5-<base64>`; nil for anything else (other
    /// algorithms, bad base64, wrong length).
    public init?(couchDigest: String) {
        guard couchDigest.hasPrefix("md5-"),
              let data = Data(base64Encoded: String(couchDigest.dropFirst(4)))
        else { return nil }
        self.init(md5: Array(data))
    }

    /// Parses 32 hex digits (either case), the form used for blob file names.
    public init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count == 32 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        for i in stride(from: 0, to: 32, by: 2) {
            guard let hi = Self.nibble(digits[i]), let lo = Self.nibble(digits[i + 1]) else { return nil }
            bytes.append(hi << 4 | lo)
        }
        self.init(md5: bytes)
    }

    /// Lower-case hex: the blob's file name.
    public var hex: String {
        let table = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for byte in md5 { out += [table[Int(byte >> 4)], table[Int(byte & 0xF)]] }
        return String(decoding: out, as: UTF8.self)
    }

    /// CouchDB's `digest` value, e.g. `md5-HQIyCpEpH1tdeHEbc/E5CQ==`; also the
    /// attachment's `ETag` (quoted) on standalone attachment GETs.
    public var couchDigest: String { "md5-" + Data(md5).base64EncodedString() }

    public var description: String { couchDigest }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.md5.lexicographicallyPrecedes(rhs.md5) }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x61...0x66: c - 0x61 + 10
        case 0x41...0x46: c - 0x41 + 10
        default: nil
        }
    }
}
