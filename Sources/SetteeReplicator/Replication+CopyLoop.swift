internal import SetteeJSON
internal import Synchronization

/*
 The copy loop (the diagram at the top of Replication.swift): read a page of changes,
 diff it against the target, copy its chunks, checkpoint.

 The next page is read while this one is copied: the source is otherwise idle while the
 target diffs and writes. Chunks of consecutive pages overlap (`PagesInFlight`), at most
 `workers` at once; `CopyCursor.seq` is where reading goes on from, `writtenSeq` the last
 page written with all before it, the only one ever checkpointed.
 */

/// Where the copy loop is: what was read, written and checkpointed, and what is in flight.
struct CopyCursor {
    var seq: JSONValue
    var writtenSeq: JSONValue
    var savedSeq: JSONValue?
    var lastCheckpoint: ContinuousClock.Instant
    /// Written changes that no checkpoint records yet.
    var uncheckpointed = false
    /// Changes read since the last checkpoint: a run of full pages is checkpointed as soon
    /// as the feed's end is reached, not up to `checkpointInterval` later.
    var changesSinceCheckpoint = 0
    var caughtUp = false
    var pages = PagesInFlight()
    /// Chunks being copied.
    var running = 0
    /// Chunks written and not yet counted in `pages`.
    let finished = FinishedChunks()
    var readAhead: Task<ChangesPage, any Error>?

    init(from seq: JSONValue) {
        self.seq = seq
        writtenSeq = seq
        lastCheckpoint = ContinuousClock.now
    }
}

extension Replication {
    typealias ChunkTasks = ThrowingTaskGroup<Int, any Error>

    /// Copies the source's changes from `start`: to the feed's end (one-shot), or until
    /// cancelled (continuous). - Returns: the last sequence written with all before it.
    func copyChanges(from start: JSONValue, checkpointer: inout Checkpointer) async throws -> JSONValue {
        var cursor = CopyCursor(from: start)
        defer { cursor.readAhead?.cancel() }
        try await withThrowingTaskGroup(of: Int.self) { chunkTasks in
            while true {
                try Task.checkCancellation()
                let page = try await readPage(&cursor)
                let read = ContinuousClock.now
                // A page shorter than asked for was the end of the feed when read: no read-ahead,
                // and next the longpoll (continuous) or the end (one-shot).
                let isFull = page.rows.count >= options.batchSize
                if isFull {
                    let next = page.lastSeq
                    cursor.readAhead = Task { try await self.nextPage(after: next, wait: nil) }
                }
                cursor.seq = page.lastSeq
                try await startCopying(page, readAt: read, &cursor, &chunkTasks)
                // At the feed's end everything lands before the longpoll or the end; while
                // full pages flow, at most `workers` of them wait for their chunks.
                while cursor.running > 0 && (!isFull || cursor.pages.count > max(1, options.workers)) {
                    try await settleOne(&cursor, &chunkTasks)
                }
                let isEnd = !isFull && !options.continuous
                let endsARun = !isFull && cursor.changesSinceCheckpoint >= options.batchSize
                try await checkpointIfDue(&cursor, &checkpointer, isEnd: isEnd || endsARun, pageWasEmpty: page.rows.isEmpty)
                if isEnd { break }
                if !isFull {
                    cursor.caughtUp = true
                    state.withLock { $0.caughtUp = true }
                }
            }
        }
        return cursor.writtenSeq
    }

    /// The read-ahead page, or the next one (a longpoll once caught up).
    private func readPage(_ cursor: inout CopyCursor) async throws -> ChangesPage {
        if let ahead = cursor.readAhead {
            cursor.readAhead = nil
            // An unstructured task is not cancelled with the job: a job stopped while its
            // read-ahead waited on a peer gone silent kept it retrying until the peer answered.
            return try await withTaskCancellationHandler { try await ahead.value } onCancel: { ahead.cancel() }
        }
        return try await nextPage(after: cursor.seq, wait: cursor.caughtUp ? longpollWait(cursor) : nil)
    }

    /// How long the next longpoll may wait: the poll timeout, or less when written
    /// changes await their checkpoint, so that a job that goes quiet records them within
    /// `quietCheckpoint` of its last change, and one that never does within
    /// `checkpointInterval` (CouchDB checkpoints on a timer too). A peer that leaves the
    /// room seconds after a burst then finds its pulls' checkpoints past the burst.
    private func longpollWait(_ cursor: CopyCursor) -> Duration {
        guard cursor.uncheckpointed, options.useCheckpoints else { return options.pollTimeout }
        let left = options.checkpointInterval - (ContinuousClock.now - cursor.lastCheckpoint)
        return max(.milliseconds(50), min(options.pollTimeout, left, Self.quietCheckpoint))
    }

    /// A continuous job with written changes and none new for this long checkpoints them.
    static var quietCheckpoint: Duration { .seconds(1) }

    /// Diffs `page` against the target and starts copying its chunks, `workers` at most.
    private func startCopying(_ page: ChangesPage, readAt read: ContinuousClock.Instant,
                              _ cursor: inout CopyCursor, _ chunkTasks: inout ChunkTasks) async throws {
        let chunks = page.rows.isEmpty ? [] : try await retrying { try await self.missingChunks(page.rows) }
        let number = cursor.pages.add(lastSeq: page.lastSeq, chunks: chunks.count, readAt: page.rows.isEmpty ? nil : read)
        for chunk in chunks {
            while cursor.running >= max(1, options.workers) { try await settleOne(&cursor, &chunkTasks) }
            chunkTasks.addTask { [finished = cursor.finished] in
                try await self.retrying { try await self.copy(chunk) }
                finished.add(number)
                return number
            }
            cursor.running += 1
        }
        countFinished(&cursor)  // chunks written meanwhile; a page with nothing to copy, behind none still copying
        if !page.rows.isEmpty { cursor.uncheckpointed = true }
        cursor.changesSinceCheckpoint += page.rows.count
    }

    /// Waits for one chunk to be written.
    private func settleOne(_ cursor: inout CopyCursor, _ chunkTasks: inout ChunkTasks) async throws {
        guard try await chunkTasks.next() != nil else { return }
        cursor.running -= 1
        countFinished(&cursor)
    }

    /// Counts every chunk written by now, awaited or not, and records the pages now written in order.
    private func countFinished(_ cursor: inout CopyCursor) {
        for number in cursor.finished.take() { cursor.pages.chunkWritten(of: number) }
        recordWritten(&cursor)
    }

    /// Records the pages now written in order: progress, lag, what to checkpoint.
    private func recordWritten(_ cursor: inout CopyCursor) {
        guard let (lastSeq, readAt) = cursor.pages.popWritten() else { return }
        cursor.writtenSeq = lastSeq
        state.withLock {
            $0.sourceSeq = lastSeq
            if let readAt { $0.lastPageLag = ContinuousClock.now - readAt }
        }
    }

    /// Checkpoints what is written, at the end, when an idle longpoll ends with nothing,
    /// when a run of at least a full page reaches the feed's end, or (continuous jobs) on
    /// the interval: not after every small page, which would delay the next change. A
    /// continuous pull that caught up with a burst and lost its peer before the interval
    /// read the whole burst again on the peer's return (bench/RESULTS.md, "The idle room's
    /// renamed services … and churn in the pull room").
    private func checkpointIfDue(_ cursor: inout CopyCursor, _ checkpointer: inout Checkpointer,
                                 isEnd: Bool, pageWasEmpty: Bool) async throws {
        let isDue = ContinuousClock.now - cursor.lastCheckpoint >= options.checkpointInterval
            && cursor.savedSeq != cursor.writtenSeq
        guard options.useCheckpoints && (isEnd || pageWasEmpty || isDue) else { return }
        let stats = progress.stats
        let checkpointSeq = cursor.writtenSeq
        try await retrying { try await checkpointer.save(checkpointSeq, stats: stats) }
        cursor.lastCheckpoint = ContinuousClock.now
        cursor.uncheckpointed = checkpointSeq != cursor.seq
        cursor.savedSeq = checkpointSeq
        cursor.changesSinceCheckpoint = 0
        state.withLock { $0.checkpointedSeq = checkpointSeq }
    }
}
