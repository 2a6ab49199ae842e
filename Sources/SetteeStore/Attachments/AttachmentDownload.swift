/// Streams one stored attachment (or a byte range of it) back out, decoding gzip'd
/// blobs on the fly when asked (a client without `Accept-Encoding: gzip`).
///
/// Not for concurrent use: one task reads, awaiting each `next()`. Blocking reads and
/// zlib run on `BlobIO`'s queue. An unlinked blob file stays readable until `close`
/// (`BlobReader`), and a small blob (`SmallBlobFile`) is read whole at the start
/// (`SmallBlobReader`), so a compaction during a download does no harm.
public final class AttachmentDownload: @unchecked Sendable {
    // @unchecked: state is touched only inside `BlobIO.run`, one call at a time.
    private let reader: any StoredBytesReader
    private let decompressor: GzipDecompressor?
    private var isDone = false

    init(reader: any StoredBytesReader, decode: Bool) throws {
        self.reader = reader
        decompressor = decode ? try GzipDecompressor() : nil
    }

    /// The next piece, or nil at the end.
    /// - Throws: `StoreError.io`, or `GzipError` for a corrupt stored blob.
    public func next() async throws -> [UInt8]? {
        try await BlobIO.run { [self] in
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
