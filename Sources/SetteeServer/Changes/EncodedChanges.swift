/// Changes after a sequence, encoded as feed lines, so that feeds asking for the
/// same thing at the same database sequence send the same bytes (`ChangesHub`).
struct EncodedChanges: Sendable {
    /// Results larger than this are shared only while being encoded, not kept after.
    static let maxKeptBytes = 64 * 1024

    var bytes: [UInt8]
    /// How many changes `bytes` encodes.
    var count: Int
    /// The sequence the read scanned up to (filters may hide rows, so not always the last change's).
    var scannedTo: Int64
}

/// What makes two encodings of changes the same: where they start, how many they
/// may hold, and every option that shapes a line.
struct ChangesLinesKey: Hashable, Sendable {
    var since: Int64
    var limit: Int?
    var format: ChangesLineFormat
}

/// The options of a continuous or eventsource feed that shape its lines, besides
/// `since` and `limit` (`ChangesQuery.sharedLineFormat`).
struct ChangesLineFormat: Hashable, Sendable {
    var feed: ChangesFeedKind
    /// Only filters that are plain values: none, or `_design`.
    var designFilter: Bool
    var includeDocs: Bool
    var conflicts: Bool
    var attachments: Bool
    var attEncodingInfo: Bool
    var allDocsStyle: Bool
}
