/// The operands of `$in`/`$nin`: a few are compared one by one; many are looked
/// up by their index-key encoding (equal values under `JSONCollation` encode
/// equally), so a 100,000-element `$in` costs each document a hash lookup, not
/// 100,000 comparisons.
struct ValueSet: Sendable {
    let values: [JSONValue]
    private let byEncoding: [[UInt8]: [JSONValue]]?

    /// Up to this many operands are scanned; past it they are hashed.
    static let scanLimit = 8

    init(_ values: [JSONValue]) {
        self.values = values
        byEncoding = values.count > Self.scanLimit ? Dictionary(grouping: values, by: { IndexKeyEncoding.encode($0) }) : nil
    }

    func contains(_ value: JSONValue) -> Bool {
        guard let byEncoding else { return values.contains { JSONCollation.isEqual($0, value) } }
        // Distinct integers past 2^53 share an encoding: the bucket is checked exactly.
        return byEncoding[IndexKeyEncoding.encode(value)]?.contains { JSONCollation.isEqual($0, value) } ?? false
    }
}
