/// Key indexes whose entries one call computes together: the views of a design
/// document. CouchDB's query server maps each document through every map function of
/// its design document at once (`map_doc`), so the document is converted and parsed
/// once for all its views; mapped view by view, a design document of two views paid
/// for both twice (bench/RESULTS.md, "One map call a document for all the views").
///
/// A refresh asks the group once per batch for every member it brings from the same
/// cursor (`KeyIndexRecords.entries`); a member refreshed alone, or from another cursor
/// than the rest, is asked through its own `KeyIndex.entries`, which asks the group
/// for that member only.
public final class KeyIndexGroup: Sendable {
    /// The entries of a batch of live documents (as `KeyIndex.entries`) for the members
    /// `members` (positions in the group): one list per member asked, in that order.
    public let entries: @Sendable (_ documents: [KeyIndexDocument], _ members: [Int]) throws -> [[[KeyIndexEntry]]]

    public init(entries: @escaping @Sendable (_ documents: [KeyIndexDocument], _ members: [Int]) throws
        -> [[[KeyIndexEntry]]]) {
        self.entries = entries
    }
}
