/// `_all_docs` range or key query over document ids.
public struct AllDocsQuery: Sendable {
    public var startKey: String?
    public var endKey: String?
    public var inclusiveEnd = true
    public var descending = false
    public var limit: Int?
    public var skip = 0
    /// When set, exactly these ids in this order (range fields ignored).
    public var keys: [String]?
    /// Load the winner's body for each row.
    public var includeBodies = false
    /// With `includeBodies`: each row with a body also gets its document's conflicts,
    /// read in the same snapshot as the rows.
    public var includeConflicts = false
    /// Also count the live design documents (`_design_docs`' `total_rows`, which CouchDB
    /// takes from its design document count: couch_mrview:get_total_rows/2).
    public var countsDesignDocuments = false
    /// `update_seq=true`: the answer carries the database's update sequence.
    public var updateSeq = false

    public init() {}
}
