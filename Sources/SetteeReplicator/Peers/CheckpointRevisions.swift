internal import SetteeJSON
internal import Synchronization

/// The `_rev` of each `_local/` checkpoint document as a remote peer last read or
/// wrote it, so a checkpoint's `PUT` carries it without reading the document again.
///
/// CouchDB's replicator does the same (spec/transcripts/: one `GET` of each checkpoint
/// at the start, then each `PUT` sends the rev the one before answered); reading it
/// before every `PUT` cost a request per peer per checkpoint (bench/RESULTS.md, sixth
/// round). A rev that went stale (another writer in between) is answered 409 by the
/// servers that check it (PouchDB Server, CouchDB 1), and `RemotePeer` then reads it.
final class CheckpointRevisions: Sendable {
    /// What is known of one document: nothing yet, missing, or stored at a rev.
    enum Known: Equatable {
        case unknown
        case missing
        case stored(rev: String)
    }

    private let known = Mutex<[String: Known]>([:])

    subscript(id: String) -> Known {
        get { known.withLock { $0[id] ?? .unknown } }
        set { known.withLock { $0[id] = newValue } }
    }

    /// What a read of the document found: its `_rev`, or missing when there is none.
    func remember(_ id: String, read document: JSONObject?) {
        self[id] = document.map { $0["_rev"]?.stringValue.map { .stored(rev: $0) } ?? .unknown } ?? .missing
    }
}
