public struct AllDocsResult: Sendable {
    /// Live (non-deleted) documents in the database.
    public let totalRows: Int
    /// Rows after skip and limit; for `keys`, one per key in order.
    public let rows: [AllDocsRow]
    public let updateSeq: Int64
    /// Live documents before the first row: those outside the start of the range, plus `skip`.
    public let offset: Int
    /// Live design documents, when the query asked for them (`countsDesignDocuments`), else 0.
    public var designDocuments = 0

    public init(totalRows: Int, rows: [AllDocsRow], updateSeq: Int64, offset: Int = 0) {
        self.totalRows = totalRows
        self.rows = rows
        self.updateSeq = updateSeq
        self.offset = offset
    }
}
