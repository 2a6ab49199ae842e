internal import Glibc
internal import FoundationEssentials
internal import SetteeJSON

/// Reads and writes the `_local/<replication id>` documents on both peers, in
/// CouchDB's shape, and picks where a replication resumes: the newest sequence
/// both peers' histories agree on (CouchDB `compare_replication_logs`), so a
/// checkpoint written to only one side is never trusted.
struct Checkpointer {
    let source: any Peer
    let target: any Peer
    let id: String
    let sessionID: String
    let startTime: String
    /// The source document's history when the session started; each checkpoint of
    /// the session puts one entry for this session in front of it.
    private(set) var baseHistory: [JSONValue] = []
    private(set) var startSeq: JSONValue = .int(0)
    /// The last sequence written, so an unchanged one is not written again.
    private(set) var recorded: JSONValue?
    /// The history as last read or written: what `_replicate` answers with.
    private(set) var history: [JSONValue] = []

    /// CouchDB keeps the 50 newest sessions.
    static let historyLimit = 50

    init(source: any Peer, target: any Peer, id: String) {
        self.source = source
        self.target = target
        self.id = id
        sessionID = UUID().uuidString.replacing("-", with: "").lowercased()
        startTime = Self.httpDate(Date())
    }

    /// Reads both documents and decides the start sequence.
    mutating func load() async throws {
        let sourceDoc = try await source.checkpoint(id: id)
        let targetDoc = try await target.checkpoint(id: id)
        baseHistory = sourceDoc?["history"]?.arrayValue ?? []
        history = baseHistory
        guard let sourceDoc, let targetDoc else { return }
        // A sequence is a string or a number; anything else is a damaged checkpoint: start over.
        switch Self.agreedSequence(sourceDoc, targetDoc) {
        case let seq? where seq.stringValue != nil || seq.numberValue != nil:
            startSeq = seq
            recorded = seq
        default: break
        }
    }

    /// CouchDB's rule: the same last session on both sides → its sequence; otherwise
    /// the newest session found in both histories → its recorded sequence; else nil.
    static func agreedSequence(_ sourceDoc: JSONObject, _ targetDoc: JSONObject) -> JSONValue? {
        if let session = sourceDoc["session_id"], session == targetDoc["session_id"] {
            return sourceDoc["source_last_seq"]
        }
        var sourceHistory = ArraySlice(sourceDoc["history"]?.arrayValue ?? [])
        var targetHistory = ArraySlice(targetDoc["history"]?.arrayValue ?? [])
        while let s = sourceHistory.first, let t = targetHistory.first {
            if targetHistory.contains(where: { $0["session_id"] == s["session_id"] }) { return s["recorded_seq"] }
            if sourceHistory.dropFirst().contains(where: { $0["session_id"] == t["session_id"] }) {
                return t["recorded_seq"]
            }
            sourceHistory = sourceHistory.dropFirst()
            targetHistory = targetHistory.dropFirst()
        }
        return nil
    }

    /// Writes `seq` to both peers (target first: a source checkpoint alone is never
    /// agreed on) unless it is what was written last.
    mutating func save(_ seq: JSONValue, stats: ReplicationStats) async throws {
        guard seq != recorded else { return }
        let entry: JSONObject = [
            "session_id": .string(sessionID), "start_time": .string(startTime),
            "end_time": .string(Self.httpDate(Date())), "start_last_seq": startSeq, "end_last_seq": seq,
            "recorded_seq": seq, "missing_checked": .int(stats.missingChecked),
            "missing_found": .int(stats.missingFound), "docs_read": .int(stats.docsRead),
            "docs_written": .int(stats.docsWritten), "doc_write_failures": .int(stats.docWriteFailures),
            "bulk_get_docs": .int(stats.bulkGetDocs), "bulk_get_attempts": .int(stats.bulkGetAttempts),
        ]
        history = Array(([.object(entry)] + baseHistory).prefix(Self.historyLimit))
        let body: JSONObject = [
            "session_id": .string(sessionID), "source_last_seq": seq,
            "replication_id_version": .int(ReplicationID.version), "history": .array(history),
        ]
        try await target.saveCheckpoint(id: id, body)
        try await source.saveCheckpoint(id: id, body)
        recorded = seq
    }

    /// RFC 1123 dates, as CouchDB writes checkpoint times.
    static func httpDate(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        // The process never calls setlocale: strftime speaks the C locale's English.
        var text = [CChar](repeating: 0, count: 64)
        let length = strftime(&text, text.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
        return String(decoding: text.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
