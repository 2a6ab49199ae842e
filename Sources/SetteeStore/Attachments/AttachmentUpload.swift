internal import Crypto

/// Streams one attachment into the database's blob store: `write` pieces as they
/// arrive from the client, then `finish` (the blob is durable, ready for the
/// revision that names it) or `abort` (nothing is left behind).
///
/// Where the bytes go: stored bytes up to `inlineLimit` are held in memory and ride
/// with the finished `StoredAttachment` into the write that names it, which stores
/// them in the blob directory's `small.sqlite` (`SmallBlobFile`) first; past the limit
/// they spill into a blob file (`BlobWriter`), made durable by `finish`.
///
/// Encodings (spec/couchdb.md "Attachments"): `.compress` gzips identity input on
/// the way in (compressible types); `.identity` stores bytes as is; `.gzipped`
/// stores input that is already gzip'd (a replicator's `"encoding":"gzip"` part).
/// Declared digests and lengths are checked against the bytes *received*, as
/// CouchDB's `couch_att:flush_data` checks the identity MD5; the stored digest is
/// always the MD5 of the stored bytes.
///
/// Not for concurrent use: one task writes, awaiting each call before the next.
/// Blocking I/O and zlib run on `BlobIO`'s queue.
public final class AttachmentUpload: @unchecked Sendable {
    // @unchecked: the mutable state is touched only inside `BlobIO.run` blocks,
    // and calls are serialized by the single task that owns the upload.

    /// How the received bytes are stored.
    public enum Encoding: Sendable, Equatable {
        case identity
        case compress
        /// Input already gzip'd; `decodedLength` is the declared identity `length`.
        case gzipped(decodedLength: Int64)
    }

    private let store: BlobStore
    /// The most stored bytes kept as a small blob rather than a blob file; 0: none.
    private let inlineLimit: Int
    /// The blob file, once the stored bytes passed `inlineLimit`.
    private var writer: BlobWriter?
    /// The stored bytes until then.
    private var held: [UInt8] = []
    private let compressor: GzipCompressor?
    private let encoding: Encoding
    /// MD5 of the bytes as received, needed only when they are compressed here
    /// (otherwise the stored bytes are the received ones and the writer hashes them).
    private var received = Insecure.MD5()
    private var receivedLength: Int64 = 0
    /// The previous piece's hashing and writing: the next piece is read from the
    /// socket while it runs (one piece in flight keeps order and bounds memory).
    private var inFlight: Task<Void, any Error>?

    /// Hears of a blob write the disk failed (`StoreError.isIOFailure`): the database turns read-only.
    private let ioFailure: (@Sendable (StoreError) -> Void)?

    init(store: BlobStore, inlineLimit: Int, encoding: Encoding,
         ioFailure: (@Sendable (StoreError) -> Void)? = nil) throws {
        self.ioFailure = ioFailure
        self.store = store
        self.inlineLimit = inlineLimit
        self.encoding = encoding
        compressor = encoding == .compress ? try GzipCompressor() : nil
    }

    deinit { writer?.abort() }

    /// Bytes received so far.
    public var bytesReceived: Int64 { receivedLength }

    /// Appends received bytes.
    /// - Throws: `StoreError.io` (disk full), `GzipError`.
    public func write(_ bytes: [UInt8]) async throws {
        guard !bytes.isEmpty else { return }
        try await reportingIOFailure { try await settle() }
        inFlight = Task { [self] in
            try await BlobIO.run { [self] in
                if compressor != nil { received.update(data: bytes) }
                receivedLength += Int64(bytes.count)
                try keep(compressor.map { try $0.compress(bytes) } ?? bytes)
            }
        }
    }

    /// Holds stored bytes in memory while they fit `inlineLimit`, else writes them to
    /// the blob file (opened at the first piece past the limit).
    private func keep(_ bytes: [UInt8]) throws {
        if writer == nil && held.count + bytes.count <= inlineLimit {
            // A whole attachment handed over at once (a replicator's) is kept, not copied.
            if held.isEmpty { held = bytes } else { held += bytes }
            return
        }
        try spill().write(bytes)
    }

    private func spill() throws -> BlobWriter {
        if let writer { return writer }
        let opened = try store.makeWriter()
        try opened.write(held)
        held = []
        writer = opened
        return opened
    }

    /// Waits for the piece in flight; its error, if any, is this call's.
    private func settle() async throws {
        guard let pending = inFlight else { return }
        inFlight = nil
        try await pending.value
    }

    /// Makes the blob durable and describes it (`revpos` 0: the store fills it in).
    /// - Parameters:
    ///   - expectedDigest: the declared `digest`, checked against the received bytes.
    ///   - expectedLength: the declared byte count of the received bytes.
    /// - Throws: `StoreError.attachmentMismatch` (nothing stored) or `.io`.
    public func finish(name: String, contentType: String, expectedDigest: AttachmentDigest? = nil,
                       expectedLength: Int64? = nil) async throws -> StoredAttachment {
        try await reportingIOFailure {
            try await finishing(name: name, contentType: contentType, expectedDigest: expectedDigest,
                                expectedLength: expectedLength)
        }
    }

    private func reportingIOFailure<T>(_ work: () async throws -> T) async throws -> T {
        do {
            return try await work()
        } catch let error as StoreError where error.isIOFailure {
            ioFailure?(error)
            throw error
        }
    }

    private func finishing(name: String, contentType: String, expectedDigest: AttachmentDigest?,
                           expectedLength: Int64?) async throws -> StoredAttachment {
        try await settle()
        return try await BlobIO.run { [self] in
            if let expectedLength, expectedLength != receivedLength {
                drop()
                // CouchDB's words (couch_att:read_data/3 via flush_data), whatever the name.
                throw StoreError.attachmentMismatch(
                    receivedLength < expectedLength ? "attachment shorter than expected" : "attachment longer than expected")
            }
            if compressor != nil, let expectedDigest, expectedDigest != AttachmentDigest(md5: Array(received.finalize())) {
                drop()
                throw StoreError.attachmentMismatch("Attachment \(name): content_md5_mismatch")
            }
            if let compressor { try keep(compressor.finish()) }
            // Uncompressed here, the stored bytes are the received ones: their digest is checked.
            let check = compressor == nil ? expectedDigest : nil
            let blob: StoredBlob
            var staged: StagedBlob?
            do {
                if writer == nil && inlineLimit > 0 {
                    blob = try heldBlob(expectedDigest: check)
                    staged = StagedBlob(held)
                } else {
                    blob = try spill().finish(expectedDigest: check)
                }
            } catch StoreError.attachmentMismatch {
                throw StoreError.attachmentMismatch("Attachment \(name): content_md5_mismatch")
            }
            let length: Int64
            switch encoding {
            case .identity: length = blob.length
            case .compress: length = receivedLength
            case .gzipped(let decodedLength): length = decodedLength
            }
            var attachment = StoredAttachment(name: name, contentType: contentType, digest: blob.key, revpos: 0,
                                              length: length, encodedLength: blob.length,
                                              encoding: encoding == .identity ? nil : "gzip")
            attachment.staged = staged
            // Held bytes are stored by the write naming them; pinned from here to its commit.
            attachment.pin = blob.pin ?? store.pins.pin(blob.key)
            return attachment
        }
    }

    /// The held bytes' key, checked against the declared digest.
    private func heldBlob(expectedDigest: AttachmentDigest?) throws -> StoredBlob {
        guard let key = AttachmentDigest(md5: Array(Insecure.MD5.hash(data: held))) else {
            preconditionFailure("MD5 is 16 bytes")
        }
        if let expectedDigest, expectedDigest != key {
            drop()
            throw StoreError.attachmentMismatch("digest \(key.couchDigest) does not match \(expectedDigest.couchDigest)")
        }
        return StoredBlob(key: key, length: Int64(held.count))
    }

    /// Forgets the bytes: the held ones, or the blob file's.
    private func drop() {
        writer?.abort()
        held = []
    }

    /// Drops the upload and its temp file; safe after `finish` and more than once.
    public func abort() async {
        // After the piece in flight, never beside it: the writer is not thread-safe.
        _ = try? await settle()
        _ = try? await BlobIO.run { [self] in drop() }
    }
}
