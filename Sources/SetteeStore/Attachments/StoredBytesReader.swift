/// Where an `AttachmentDownload` reads stored bytes from, in pieces: a blob file
/// (`BlobReader`) or a small blob of `small.sqlite` (`SmallBlobReader`).
protocol StoredBytesReader: AnyObject {
    /// The next piece (at most `maxLength` bytes), or nil at the end of the range.
    func read(maxLength: Int) throws -> [UInt8]?
    func close()
}

extension StoredBytesReader {
    func read() throws -> [UInt8]? { try read(maxLength: 64 * 1024) }
}

extension BlobReader: StoredBytesReader {}

/// A small blob read whole from `small.sqlite` (`SmallBlobFile`), handed out in pieces
/// like a file's; `range` as `BlobReader`'s.
final class SmallBlobReader: StoredBytesReader {
    private let bytes: [UInt8]
    private var offset: Int
    private let end: Int

    /// - Throws: `StoreError.attachmentMismatch` for a range past the end, as `BlobReader`.
    init(_ bytes: [UInt8], range: Range<Int64>?) throws {
        let wanted = range ?? 0..<Int64(bytes.count)
        guard wanted.lowerBound >= 0, wanted.upperBound <= Int64(bytes.count) else {
            throw StoreError.attachmentMismatch("range \(wanted) outside blob of \(bytes.count) bytes")
        }
        (self.bytes, offset, end) = (bytes, Int(wanted.lowerBound), Int(wanted.upperBound))
    }

    func read(maxLength: Int) throws -> [UInt8]? {
        guard offset < end else { return nil }
        let next = min(end, offset + maxLength)
        defer { offset = next }
        return Array(bytes[offset..<next])
    }

    func close() {}
}

@available(*, unavailable)
extension SmallBlobReader: Sendable {}
