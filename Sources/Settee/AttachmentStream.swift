public import FoundationEssentials
internal import SetteeStore

/// An attachment's bytes as an `AsyncSequence` of pieces, read from the blob store as they
/// are asked for: however large the attachment, one piece (at most a few hundred KiB) is
/// in memory at a time.
///
///     for try await piece in try await photos.attachmentStream(named: "full.jpg", documentID: "p1") {
///         try output.write(contentsOf: piece)
///     }
///
/// Each iteration reads the attachment of the revision current when the stream was made.
/// The last piece comes only once the bytes matched their digest: a damaged attachment
/// throws ``SetteeError/damaged(database:reason:)`` instead, never ends as if whole.
/// Cancelling the iterating task ends the sequence and releases the file.
public struct AttachmentStream: AsyncSequence, Sendable {
    public typealias Element = Data
    public typealias Failure = SetteeError

    let database: Database
    let attachment: StoredAttachment
    let documentID: String
    /// The attachment's identity (decoded) length in bytes.
    public var length: Int64 { attachment.length }
    public var contentType: String { attachment.contentType }

    public func makeAsyncIterator() -> Iterator { Iterator(stream: self) }

    public struct Iterator: AsyncIteratorProtocol, Sendable {
        let stream: AttachmentStream
        var download: OpenDownload?
        var isFinished = false

        init(stream: AttachmentStream) { self.stream = stream }

        public mutating func next() async throws(SetteeError) -> Data? {
            guard !isFinished else { return nil }
            if Task.isCancelled { return finish() }
            let open: OpenDownload
            if let download {
                open = download
            } else {
                let store = stream.database.store
                let attachment = stream.attachment
                open = OpenDownload(try await stream.database.run(id: stream.documentID) {
                    try await store.openAttachment(attachment, decode: true)
                })
                download = open
            }
            let piece = try await stream.database.run(id: stream.documentID) { try await open.download.next() }
            guard let piece else { return finish() }
            return Data(piece)
        }

        private mutating func finish() -> Data? {
            isFinished = true
            download = nil  // closes the file (OpenDownload.deinit)
            return nil
        }
    }
}

/// A download, closed when the last iterator holding it goes.
final class OpenDownload: Sendable {
    let download: AttachmentDownload

    init(_ download: AttachmentDownload) { self.download = download }

    deinit { download.close() }
}
