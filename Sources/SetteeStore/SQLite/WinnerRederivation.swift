/// Schema migration 5 → 6: sets `docs.winner` (and `winner_seq`) of every
/// document with more than one leaf to the winner `RevisionTree` picks now.
/// Earlier schemas chose it comparing revision ids as text, which CouchDB does
/// not (`RevisionID.<`). The deleted flag cannot change (live leaves rank first
/// under both orders), so the document counts stay as they are.
enum WinnerRederivation {
    static func run(_ db: Connection) throws {
        var ids: [String] = []
        try db.query("""
            SELECT d.docid FROM docs d
            WHERE (SELECT count(*) FROM revs r WHERE r.doc_id = d.doc_id AND r.current = 1) > 1
            """) { row in ids.append(row.text(0) ?? "") }
        for id in ids {
            guard let (record, tree) = try DocumentRecords.documentAndTree(db, id: id),
                  let winner = tree.winner, winner.rev != record.winner else { continue }
            try db.run("UPDATE docs SET winner = ?, winner_seq = ?, deleted = ? WHERE doc_id = ?",
                       [.text(winner.rev.description), .integer(winner.sequence),
                        .integer(winner.isDeleted ? 1 : 0), .integer(record.rowID)])
        }
    }
}
