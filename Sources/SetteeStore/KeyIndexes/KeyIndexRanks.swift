/// Every `stride`-th key of a key index in order, so that the rank of any key (how
/// many entries sort before it) costs a binary search and a count of at most
/// `stride` rows, instead of counting from the start: a view's `offset`.
struct KeyIndexRanks: Sendable {
    /// 128: a rank counts 64 rows on average (a view's point query pays it each time),
    /// for a sample of 1/128 of the keys kept per index (about 0.8 % of its keys' bytes).
    static let stride = 128

    /// The index's `key_indexes.seq` when the sample was taken: a later one is stale.
    let sequence: Int64
    let total: Int
    /// `samples[i]` has rank `i * stride`.
    let samples: [[UInt8]]

    init(_ db: Connection, _ index: KeyIndex, sequence: Int64) throws {
        self.sequence = sequence
        var samples: [[UInt8]] = []
        var count = 0
        if try KeyIndexRecords.exists(db, index) {
            try db.query("SELECT key FROM \(index.table) ORDER BY key") { row in
                if count % Self.stride == 0 { samples.append(row.blob(0) ?? []) }
                count += 1
            }
        }
        self.samples = samples
        total = count
    }

    /// How many entries sort before `bound`.
    func rank(of bound: [UInt8], _ db: Connection, _ index: KeyIndex) throws -> Int {
        // The last sample below the bound.
        var (low, high) = (0, samples.count)
        while low < high {
            let middle = (low + high) / 2
            if samples[middle].lexicographicallyPrecedes(bound) { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return 0 }
        let sample = low - 1
        let counted = try db.integer("SELECT count(*) FROM \(index.table) WHERE key >= ? AND key < ?",
                                     [.blob(samples[sample]), .blob(bound)]) ?? 0
        return sample * Self.stride + Int(counted)
    }
}
