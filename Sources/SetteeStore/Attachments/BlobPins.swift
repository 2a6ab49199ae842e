internal import Synchronization

/// The blobs uploads have stored that no committed revision may name yet: a compaction
/// sweep keeps them (issue 47, item 3).
///
/// Why: a write with attachments is two steps (`Database+Attachments`): the blob is
/// stored first, then the revision naming it commits. A sweep between the two saw an
/// unreferenced blob and deleted it, and the write was refused ("Document is missing
/// attachment"): 30 of 2,260 uploads while `_compact` ran. So an upload pins its blob
/// from the moment it may find it stored (before its dedupe check or rename) until the
/// write naming it has committed or failed (or the upload is dropped unwritten); the
/// sweep deletes only unpinned blobs.
///
/// Invariant: a pin is never taken between a sweep's check of a key and that key's
/// deletion, because the sweep holds `sweeping` for both (`removingUnpinned`) and `pin`
/// takes it too. So either the pin came first and the blob is kept, or the deletion came
/// first and the pinning upload finds no blob and stores its own bytes
/// (`BlobWriter.install`, `SmallBlobFile.store`). Releasing takes only `counts`, held for
/// a dictionary update: the write that releases (on Swift's cooperative pool) never waits
/// for a sweep; a key released during one is simply kept until the next.
final class BlobPins: Sendable {
    private let counts = Mutex<[BlobKey: Int]>([:])
    /// Held by a sweep from its check to its deletions, and by `pin` (always before `counts`).
    private let sweeping = Mutex<Void>(())

    /// Pins `key` until the returned pin is released. Waits while a sweep removes blobs:
    /// call it off the cooperative pool (`BlobIO`).
    func pin(_ key: BlobKey) -> BlobPin {
        sweeping.withLock { _ in counts.withLock { $0[key, default: 0] += 1 } }
        return BlobPin(key: key, pins: self)
    }

    /// Whether `key` is pinned now (tests).
    func isPinned(_ key: BlobKey) -> Bool { counts.withLock { $0[key] != nil } }

    fileprivate func release(_ key: BlobKey) {
        counts.withLock { counts in
            guard let count = counts[key] else { return }
            counts[key] = count > 1 ? count - 1 : nil
        }
    }

    /// Calls `remove` with the keys of `candidates` that are not pinned, so that no key is
    /// pinned between the check and its removal. Returns what `remove` returns (how many
    /// it removed).
    func removingUnpinned(_ candidates: [BlobKey], _ remove: ([BlobKey]) throws -> Int) throws -> Int {
        try sweeping.withLock { _ in
            let pinned = counts.withLock { $0 }
            return try remove(candidates.filter { pinned[$0] == nil })
        }
    }
}

/// One upload's hold on a blob (`BlobPins`): released by the write naming it once that
/// has committed or failed (`Database.update`), or when the last copy of the
/// `StoredAttachment` carrying it goes, whichever comes first.
final class BlobPin: Sendable {
    let key: BlobKey
    private let pins: BlobPins
    private let isReleased = Atomic<Bool>(false)

    fileprivate init(key: BlobKey, pins: BlobPins) {
        self.key = key
        self.pins = pins
    }

    /// Lets a sweep have the blob again; only the first call counts.
    func release() {
        if !isReleased.exchange(true, ordering: .relaxed) { pins.release(key) }
    }

    deinit { release() }
}
