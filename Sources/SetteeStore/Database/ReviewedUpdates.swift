/// The outcome of a `WritePolicy` review: the updates to write, and the positions
/// of the refused ones.
struct ReviewedUpdates {
    let accepted: [DocumentUpdate]
    let refused: [Int: WriteRejection]

    /// One result per original update: the refusals in their places, the written
    /// results in order around them.
    func merge(_ written: [Result<RevisionID, StoreError>]) -> [Result<RevisionID, StoreError>] {
        guard !refused.isEmpty else { return written }
        var next = written.makeIterator()
        return (0..<(accepted.count + refused.count)).map { index in
            if let rejection = refused[index] { return .failure(.rejected(rejection)) }
            return next.next() ?? .failure(.conflict)
        }
    }
}
