/// gzip decoding of a whole value in memory, for callers outside the store that
/// receive an attachment still encoded (a CouchDB `open_revs` part with
/// `Content-Encoding: gzip`) and need its identity bytes.
public enum GzipCoding {
    /// The identity bytes of `encoded`, refusing to produce more than `limit`.
    /// - Throws: `GzipError` for corrupt or truncated data, or output past `limit`.
    public static func decode(_ encoded: [UInt8], limit: Int) throws -> [UInt8] {
        let gunzip = try GzipDecompressor()
        gunzip.feed(encoded)
        var out: [UInt8] = []
        while let piece = try gunzip.read() {
            out += piece
            if out.count > limit { throw GzipError(code: -1, message: "decoded attachment larger than \(limit) bytes") }
        }
        try gunzip.finish()
        return out
    }
}
