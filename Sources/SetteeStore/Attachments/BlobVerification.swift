internal import Crypto
internal import Glibc
internal import Synchronization

/// Checks stored attachment bytes against their digest (the blob's key) as they are read.
///
/// A blob's key is the MD5 of its stored bytes, so a damaged file, pack block or
/// `small.sqlite` row shows itself as a mismatch. CouchDB checks the same MD5 only after
/// its fold handed every byte to the response (couch_stream.erl `foldl/4` matches the
/// final digest last) and never for a range (`range_foldl/5`); Settee checks before the
/// last piece leaves (`AttachmentDownload` holds one piece back), so a damaged blob's
/// response ends short instead of arriving whole with wrong bytes.
enum BlobVerification {
    /// File blobs up to this size are read whole and checked once before a range of them
    /// is served: about 0.1 s of MD5 at the worst. Larger ones serve ranges unchecked (as
    /// CouchDB serves every range) until a whole read checked them; a media player's first
    /// seek into a 4 GB video should not wait for 4 GB of reading.
    static let rangeCheckLimit: Int64 = 64 << 20

    /// - Throws: `StoreError.attachmentDamaged` when `bytes` are not the blob `key`.
    static func check(_ bytes: [UInt8], against key: BlobKey, location: String) throws {
        let actual = Array(Insecure.MD5.hash(data: bytes))
        guard actual == key.md5 else { throw damaged(key, actual: actual, location: location) }
    }

    static func damaged(_ key: BlobKey, actual: [UInt8], location: String) -> StoreError {
        let found = AttachmentDigest(md5: actual)?.couchDigest ?? "?"
        return .attachmentDamaged(digest: key.couchDigest,
                                  detail: "stored bytes in \(location) have digest \(found)")
    }
}

/// Reads a whole blob through `base`, hashing what passes; at the end the digest must
/// be the key's, else the read throws instead of reporting the end.
final class VerifyingReader: StoredBytesReader {
    private let base: any StoredBytesReader
    private let key: BlobKey
    private let location: String
    private var hash = Insecure.MD5()
    private let onVerified: () -> Void

    /// - Parameter onVerified: called once the whole blob matched its key.
    init(_ base: any StoredBytesReader, key: BlobKey, location: String, onVerified: @escaping () -> Void = {}) {
        (self.base, self.key, self.location, self.onVerified) = (base, key, location, onVerified)
    }

    func read(maxLength: Int) throws -> [UInt8]? {
        if let piece = try base.read(maxLength: maxLength) {
            hash.update(data: piece)
            return piece
        }
        let actual = Array(hash.finalize())
        guard actual == key.md5 else { throw BlobVerification.damaged(key, actual: actual, location: location) }
        onVerified()
        return nil
    }

    func close() { base.close() }
}

@available(*, unavailable)
extension VerifyingReader: Sendable {}

/// Blob files this process has read whole and found matching their key, so a range of
/// one is served without reading it all again. An entry names the file's inode, size and
/// modification time: a file replaced or rewritten since is checked again.
final class VerifiedBlobFiles: Sendable {
    private let verified = Mutex<Set<FileIdentity>>([])
    /// Bounds the memory (about 60 bytes an entry); past it the set starts over.
    private static let capacity = 100_000

    func contains(_ identity: FileIdentity) -> Bool { verified.withLock { $0.contains(identity) } }

    func insert(_ identity: FileIdentity) {
        verified.withLock { set in
            if set.count >= Self.capacity { set.removeAll() }
            set.insert(identity)
        }
    }
}

/// Which file a blob read came from, as `fstat(2)` tells it.
struct FileIdentity: Hashable, Sendable {
    let key: BlobKey
    let inode: UInt64
    let size: Int64
    let modifiedNanoseconds: Int64

    init(key: BlobKey, stat info: stat) {
        self.key = key
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modifiedNanoseconds = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    }
}
