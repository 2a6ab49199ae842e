import SetteeStore

/// How every `_changes` feed ends: its `last_seq` and `pending`, decided here
/// and nowhere else, and the closing text each feed kind writes.
///
/// A feed stopped by its `limit` (or read newest first) ends at the last change
/// it sent; any other ends where it got to (the database's sequence, or how far
/// its scan reached, never before `since`). `pending` counts the changes after
/// `last_seq`, as CouchDB's end line does: those a limit left out, or that came
/// while the feed ended. A descending feed has nothing pending.
struct ChangesFeedEnd: Sendable {
    var lastSeq: Int64
    var pending: Int

    static func of(_ database: Database, _ query: ChangesQuery, since: Int64, reached: Int64,
                   stoppedByLimit: Bool, lastSent: Int64?) async throws -> ChangesFeedEnd {
        let endsAtLastSent = stoppedByLimit || query.descending
        let lastSeq = endsAtLastSent ? (lastSent ?? since) : max(reached, since)
        let pending = query.descending ? 0 : try await database.changeCount(since: lastSeq, docIDs: query.docIDs)
        return ChangesFeedEnd(lastSeq: lastSeq, pending: pending)
    }

    /// What follows the last result of a normal or longpoll body: `\n],\n"last_seq":..,"pending":..}`.
    var afterResults: [UInt8] {
        var out = Array("\n],\n\"last_seq\":".utf8)
        SequenceToken.write(lastSeq, to: &out)
        out.append(contentsOf: ",\"pending\":\(pending)}\n".utf8)
        return out
    }

    /// The last line of a continuous feed: `{"last_seq":..,"pending":..}`.
    var continuousLine: [UInt8] {
        var out = Array("{\"last_seq\":".utf8)
        SequenceToken.write(lastSeq, to: &out)
        out.append(contentsOf: ",\"pending\":\(pending)}\n".utf8)
        return out
    }

    /// A whole normal or longpoll body with no results.
    var emptyBody: [UInt8] { Array("{\"results\":[".utf8) + afterResults }
}
