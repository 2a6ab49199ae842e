/// One attachment of a stored revision: what a stub shows, and the blob holding it.
///
/// The blob key is `digest`: the store is content-addressed, so two attachments with
/// the same stored bytes share one blob (spec/couchdb.md "Attachments").
public struct StoredAttachment: Sendable, Equatable {
    public var name: String
    public var contentType: String
    /// MD5 of the stored bytes (compressed ones when `encoding` is `"gzip"`), as CouchDB.
    public var digest: AttachmentDigest
    /// Generation of the revision that last changed this attachment (≥ 1).
    public var revpos: Int
    /// Length of the identity (decoded) bytes.
    public var length: Int64
    /// Length of the stored bytes; equals `length` for identity attachments.
    public var encodedLength: Int64
    /// `"gzip"` when stored compressed; nil for identity.
    public var encoding: String?

    /// The bytes of a just-finished upload small enough for the blob store's
    /// `small.sqlite`: the write naming this attachment stores them. Nil for blobs
    /// already stored, and for every attachment read back.
    var staged: StagedBlob?
    /// A just-finished upload's hold on its blob: a compaction sweep keeps the blob while
    /// any copy of this attachment (the write naming it) is alive (`BlobPins`). Nil for
    /// every attachment read back.
    var pin: BlobPin?

    /// Whether the stored bytes are gzip'd.
    public var isGzipped: Bool { encoding == "gzip" }

    public init(name: String, contentType: String, digest: AttachmentDigest, revpos: Int,
                length: Int64, encodedLength: Int64, encoding: String? = nil) {
        self.name = name
        self.contentType = contentType
        self.digest = digest
        self.revpos = revpos
        self.length = length
        self.encodedLength = encodedLength
        self.encoding = encoding
    }

    /// What a stub shows and the blob it names; where the bytes wait (`staged`) and the
    /// upload's `pin` are not part of it.
    public static func == (lhs: StoredAttachment, rhs: StoredAttachment) -> Bool {
        lhs.name == rhs.name && lhs.contentType == rhs.contentType && lhs.digest == rhs.digest
            && lhs.revpos == rhs.revpos && lhs.length == rhs.length && lhs.encodedLength == rhs.encodedLength
            && lhs.encoding == rhs.encoding
    }
}

/// The bytes of a finished upload small enough for the blob store's `small.sqlite`:
/// they ride with the `StoredAttachment` into the write that names it, which stores
/// them first (`Database.update`). A class, so copies of the attachment share one buffer.
final class StagedBlob: Sendable {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }
}
