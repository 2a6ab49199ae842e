/// The text of a multi-row INSERT for each row count up to a bound, built once: joining
/// the VALUES list on every run of the writer was 3 % of a replicated `_bulk_docs`' CPU on
/// the target (two INSERTs a run of 50 documents; bench/RESULTS.md, "Replication of
/// 100,000 documents, second round").
struct MultiRowInsert: Sendable {
    private let prefix: String
    private let row: String
    private let suffix: String
    private let built: [String]

    /// `prefix`, `rows` copies of `row` joined by commas, then `suffix`, kept for 0...`maxRows` rows.
    init(_ prefix: String, row: String, suffix: String = "", maxRows: Int) {
        self.prefix = prefix
        self.row = row
        self.suffix = suffix
        built = (0...maxRows).map { Self.text(prefix, row, suffix, rows: $0) }
    }

    /// The statement for `rows` rows; built again only past `maxRows`.
    func sql(rows: Int) -> String { rows < built.count ? built[rows] : Self.text(prefix, row, suffix, rows: rows) }

    private static func text(_ prefix: String, _ row: String, _ suffix: String, rows: Int) -> String {
        prefix + repeatElement(row, count: rows).joined(separator: ", ") + suffix
    }
}
