internal import SetteeJSON
internal import Synchronization

/// Pages of changes whose chunks are still being copied, oldest first.
///
/// Chunks of consecutive pages overlap (a page's last chunks would otherwise run
/// alone while the other workers wait for the next page's `_revs_diff`), so they
/// finish out of order. A page counts as written only once it and every page read
/// before it are: only then may its sequence be checkpointed.
struct PagesInFlight {
    private struct Page {
        let number: Int
        let lastSeq: JSONValue
        var chunksLeft: Int
        let readAt: ContinuousClock.Instant?
    }

    private var pages: [Page] = []
    private var nextNumber = 0

    /// Pages read and not yet written.
    var count: Int { pages.count }

    /// Adds a page whose rows make `chunks` chunks to copy (none when the target
    /// lacked nothing), read at `readAt` (nil for a page without changes: it has no lag).
    /// - Returns: the number its chunks report back.
    mutating func add(lastSeq: JSONValue, chunks: Int, readAt: ContinuousClock.Instant?) -> Int {
        defer { nextNumber += 1 }
        pages.append(Page(number: nextNumber, lastSeq: lastSeq, chunksLeft: chunks, readAt: readAt))
        return nextNumber
    }

    /// One chunk of page `number` is written.
    mutating func chunkWritten(of number: Int) {
        guard let index = pages.firstIndex(where: { $0.number == number }) else { return }
        pages[index].chunksLeft -= 1
    }

    /// Removes the written pages at the front. - Returns: the newest one's `lastSeq`
    /// (it may be checkpointed now) and when the newest of them with changes was read;
    /// nil when the oldest page is still copying.
    mutating func popWritten() -> (lastSeq: JSONValue, readAt: ContinuousClock.Instant?)? {
        let written = pages.prefix { $0.chunksLeft <= 0 }
        guard let newest = written.last else { return nil }
        pages.removeFirst(written.count)
        return (newest.lastSeq, written.last { $0.readAt != nil }?.readAt)
    }
}

/// Chunks that ended, reported by their tasks as they end, for the copy loop to take at
/// each page: a chunk task's result reaches the loop only when it next awaits a chunk
/// (a worker's slot, or the feed's end), and while full pages with nothing to copy flow,
/// that was not until `workers` pages had piled up behind it. A pull in a room of 20 read
/// a burst for 11 s with its checkpoint held at the page before it, and on its peer's
/// return read the burst again from there (bench/RESULTS.md, "Churn with a margin").
final class FinishedChunks: Sendable {
    private let numbers = Mutex<[Int]>([])

    /// A chunk of page `number` is written.
    func add(_ number: Int) { numbers.withLock { $0.append(number) } }

    /// The pages of the chunks written since the last call, one entry a chunk.
    func take() -> [Int] { numbers.withLock { numbers in defer { numbers = [] }; return numbers } }
}
