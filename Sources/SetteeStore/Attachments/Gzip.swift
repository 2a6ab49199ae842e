/// gzip (RFC 1952) as CouchDB stores compressible attachments.
///
/// CouchDB keeps attachments whose type matches `[attachments] compressible_types`
/// gzip'd on disk and sends them still encoded (`Content-Encoding: gzip`) in
/// multipart replies; stubs then show `"encoding":"gzip"` and `encoded_length`
/// (docs.couchdb.org, "Attachments" in the Document API, and `[attachments]` in the
/// configuration reference). `GzipCompressor` and `GzipDecompressor` work chunk by
/// chunk so a 1 GiB attachment passes through in bounded memory; the helpers here
/// are for small, in-memory values.
///
/// All calls are CPU-bound and synchronous: callers handling large streams should
/// run them off the cooperative pool, as they do the blob store's file I/O.
enum Gzip {
    /// CouchDB's default `compressible_types`: `text/*, application/javascript,
    /// application/json, application/xml`.
    static let defaultCompressibleTypes = [
        "text/*", "application/javascript", "application/json", "application/xml",
    ]

    /// Whether an attachment of `contentType` is stored gzip'd under `patterns`
    /// (CouchDB's `compressible_types`: exact types or `type/*` wildcards).
    ///
    /// Parameters (`; charset=utf-8`) are ignored and the comparison is
    /// case-insensitive, as media types are (RFC 9110 §8.3.1).
    static func isCompressible(contentType: String, patterns: [String] = defaultCompressibleTypes) -> Bool {
        let bare = contentType.split(separator: ";", maxSplits: 1).first ?? ""
        let type = bare.trimmingASCIISpaces().lowercased()
        return patterns.contains { pattern in
            let pattern = pattern.lowercased()
            if pattern.hasSuffix("/*") { return type.hasPrefix(pattern.dropLast()) }
            return type == pattern
        }
    }

    /// `bytes` compressed into one gzip member.
    /// - Throws: `GzipError` if zlib fails (out of memory).
    static func compress(_ bytes: [UInt8], level: Int = GzipCompressor.defaultLevel) throws -> [UInt8] {
        let compressor = try GzipCompressor(level: level)
        var out = try compressor.compress(bytes)
        out += try compressor.finish()
        return out
    }

    /// The bytes encoded in `gzipped` (one or more gzip members).
    /// - Throws: `GzipError` for corrupt or truncated input, or when the result would
    ///   exceed `limit` bytes (a guard against decompression bombs).
    static func decompress(_ gzipped: [UInt8], limit: Int = Int.max) throws -> [UInt8] {
        let decompressor = try GzipDecompressor()
        decompressor.feed(gzipped)
        var out: [UInt8] = []
        while let piece = try decompressor.read() {
            guard out.count + piece.count <= limit else {
                throw GzipError(code: 0, message: "decompressed data exceeds \(limit) bytes")
            }
            out += piece
        }
        try decompressor.finish()
        return out
    }
}

/// A zlib failure: the zlib return code and its message.
struct GzipError: Error, Sendable, Equatable, CustomStringConvertible {
    /// zlib's return code (`Z_DATA_ERROR` is -3), or 0 for Settee's own checks.
    let code: Int32
    let message: String

    init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    var description: String { "gzip: \(message) (\(code))" }
}

extension Substring {
    func trimmingASCIISpaces() -> Substring {
        var s = self
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return s
    }
}
