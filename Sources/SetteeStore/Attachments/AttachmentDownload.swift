/// Streams one stored attachment (or a byte range of it) back out, decoding gzip'd
/// blobs on the fly when asked (a client without `Accept-Encoding: gzip`).
///
/// Not for concurrent use: one task reads, awaiting each `next()`. Blocking reads and
/// zlib run on `BlobIO`'s queue. An unlinked blob file stays readable until `close`
/// (`BlobReader`), and a small blob (`SmallBlobFile`) is read whole at the start
/// (`SmallBlobReader`), so a compaction during a download does no harm.
///
/// Each piece is handed out only once the next one was read, and the last only after the
/// blob matched its digest (`BlobStore.open` checks every read): a damaged blob's
/// download throws before its last piece, so a response with a `Content-Length` ends
/// short rather than full length with wrong bytes.
public final class AttachmentDownload: @unchecked Sendable {
    // @unchecked: state is touched only inside `BlobIO.run`, one call at a time.
    private let reader: any StoredBytesReader
    private let decompressor: GzipDecompressor?
    private var isDone = false
    private var isStarted = false
    /// The piece read ahead, handed out by the next `next()`.
    private var held: [UInt8]?

    init(reader: any StoredBytesReader, decode: Bool) throws {
        self.reader = reader
        decompressor = decode ? try GzipDecompressor() : nil
    }

    /// The next piece, or nil at the end.
    /// - Throws: `StoreError.io`, `.attachmentDamaged` when the stored bytes do not match
    ///   their digest, or `GzipError` for a corrupt stored blob.
    public func next() async throws -> [UInt8]? {
        try await BlobIO.run { [self] in
            if !isStarted {
                isStarted = true
                held = try produce()
            }
            guard let piece = held else { return nil }
            held = try produce()
            return piece
        }
    }

    /// The next piece from the blob (decoded when asked), or nil at the end.
    private func produce() throws -> [UInt8]? {
        guard !isDone else { return nil }
        guard let decompressor else {
            let piece = try reader.read()
            if piece == nil { isDone = true }
            return piece
        }
        while true {
            if let plain = try decompressor.read() { return plain }
            guard let stored = try reader.read() else {
                isDone = true
                try decompressor.finish()
                return nil
            }
            decompressor.feed(stored)
        }
    }

    /// The whole rest of the attachment in memory (inline `data`, bounded by the document size limit).
    public func readAll() async throws -> [UInt8] {
        var all: [UInt8] = []
        while let piece = try await next() { all += piece }
        return all
    }

    /// Releases the file, if any.
    public func close() { reader.close() }
}
