import SetteeStore

/// How every `_changes` feed ends: its `last_seq` and `pending`, decided here
/// and nowhere else, and the closing text each feed kind writes.
///
/// A feed stopped by its `limit` (or read newest first) ends at the last change
/// it sent; any other ends where it got to (the database's sequence, or how far
/// its scan reached, never before `since`). `pending` counts the changes after
/// `last_seq`, as CouchDB's end line does: those a limit left out, or that came
/// while the feed ended. A descending feed has nothing pending.
///
/// Except after `filter=_doc_ids` and `filter=_design`: CouchDB reads those by
/// document, not by walking the changes (couch_changes's doc_ids and design-docs
/// folds), and its `pending` starts from the count of changes since `since` and loses
/// one per row sent, so it counts every change after `since` that was not sent: ten
/// changes, three of them asked for by id, end with `"pending":7` (Apache CouchDB 3.4.3;
/// conformance/test_changes.py).
struct ChangesFeedEnd: Sendable {
    var lastSeq: Int64
    var pending: Int

    /// - Parameter sent: the rows sent and the `since` they were read from, for the
    ///   by-document filters' count; nil where the feed does not know them.
    static func of(_ database: Database, _ query: ChangesQuery, since: Int64, reached: Int64,
                   stoppedByLimit: Bool, lastSent: Int64?,
                   sent: (rows: Int, since: Int64)? = nil) async throws -> ChangesFeedEnd {
        let endsAtLastSent = stoppedByLimit || query.descending
        let lastSeq = endsAtLastSent ? (lastSent ?? since) : max(reached, since)
        let pending: Int
        if query.descending {
            pending = 0
        } else if let sent, query.readsByDocument {
            pending = max(0, try await database.changeCount(since: sent.since, docIDs: nil) - sent.rows)
        } else {
            pending = try await database.changeCount(since: lastSeq, docIDs: query.docIDs)
        }
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
