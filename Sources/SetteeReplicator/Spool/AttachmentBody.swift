internal import SetteeStore

/// The identity bytes of one attachment on their way from source to target, and
/// where they are meanwhile: in memory (small ones), in a `SpoolFile` (what a remote
/// source sent, past `SpoolingCollector.memoryLimit`), or still in the local
/// source's store (read when the target takes them). Never more than one piece of a
/// large attachment is in memory at a time: the replicator's memory does not grow
/// with attachment sizes (issue 45 item 4).
public final class AttachmentBody: Sendable {
    enum Storage: Sendable {
        case memory([UInt8])
        case spooled(SpoolFile)
        /// A local source's attachment; `id` and `rev` name the revision, to tell a
        /// blob compacted away since (the revision is in flux) from a damaged one.
        case stored(Database, StoredAttachment, id: String, rev: RevisionID)
    }

    let storage: Storage
    /// The identity byte count.
    public let length: Int64

    /// Bytes held in memory.
    public init(_ bytes: [UInt8]) {
        storage = .memory(bytes)
        length = Int64(bytes.count)
    }

    init(spool: SpoolFile) {
        storage = .spooled(spool)
        length = spool.length
    }

    /// `attachment` of revision `rev` of document `id` in `database`, read when needed.
    init(stored attachment: StoredAttachment, in database: Database, id: String, rev: RevisionID) {
        storage = .stored(database, attachment, id: id, rev: rev)
        length = attachment.length
    }

    /// The largest piece handed out at once.
    static let pieceSize = 256 * 1024

    /// Hands the bytes to `consume` in order, a piece at a time.
    /// - Throws: what `consume` throws; `ReplicationError.spoolFailed`; for a stored
    ///   attachment `ReplicationError.revisionMissing` when its revision lost its body
    ///   since it was listed (compaction), else the store's error.
    public func forEachPiece(_ consume: (_ piece: [UInt8]) async throws -> Void) async throws {
        switch storage {
        case .memory(let bytes):
            try await consume(bytes)
        case .spooled(let spool):
            var offset: Int64 = 0
            while offset < spool.length {
                let piece = try await SpoolIO.run { [offset] in try spool.read(at: offset, maxLength: Self.pieceSize) }
                guard !piece.isEmpty else { break }
                offset += Int64(piece.count)
                try await consume(piece)
            }
        case .stored(let database, let attachment, let id, let rev):
            let download = try await Self.open(attachment, in: database, id: id, rev: rev)
            defer { download.close() }
            while let piece = try await download.next() { try await consume(piece) }
        }
    }

    /// All the bytes in memory (small attachments, tests).
    public func readAll() async throws -> [UInt8] {
        if case .memory(let bytes) = storage { return bytes }
        var all: [UInt8] = []
        try await forEachPiece { all += $0 }
        return all
    }

    /// These bytes in a form a blocking reader (the curl thread) can read without
    /// waiting on the store: itself when in memory or spooled, else a copy in a spool file.
    func readable(spoolingIn directory: SpoolDirectory) async throws -> AttachmentBody {
        guard case .stored = storage else { return self }
        let spool = try SpoolFile(directory: directory.path)
        try await forEachPiece { piece in try await SpoolIO.run { try spool.append(piece) } }
        return AttachmentBody(spool: spool)
    }

    /// Opens a stored attachment; a blob gone because its revision was compacted since
    /// the change was listed is a revision in flux (retried), not damage.
    private static func open(_ attachment: StoredAttachment, in database: Database, id: String,
                             rev: RevisionID) async throws -> AttachmentDownload {
        do {
            return try await database.openAttachment(attachment, decode: true)
        } catch let error as StoreError {
            guard case .attachmentDamaged = error else { throw error }
            let current = try await database.document(id: id, revisions: .revision(rev))
            if current?.revisions.first?.body == nil { throw ReplicationError.revisionMissing(id, rev.description) }
            throw error
        }
    }
}
