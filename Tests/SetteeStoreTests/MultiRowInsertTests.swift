@testable import SetteeStore
import Testing

@Suite struct MultiRowInsertTests {
    /// The kept texts and those built past the bound are the same statement as joining
    /// the rows each time.
    @Test func givesTheJoinedStatementForEveryRowCount() {
        let insert = MultiRowInsert("INSERT INTO t(a, b) VALUES ", row: "(?, ?)", suffix: " ON CONFLICT DO NOTHING",
                                    maxRows: 4)
        #expect(insert.sql(rows: 3) == "INSERT INTO t(a, b) VALUES (?, ?), (?, ?), (?, ?) ON CONFLICT DO NOTHING")
        for rows in 0...9 {
            let joined = "INSERT INTO t(a, b) VALUES " + Array(repeating: "(?, ?)", count: rows).joined(separator: ", ")
                + " ON CONFLICT DO NOTHING"
            #expect(insert.sql(rows: rows) == joined, "\(rows) rows")
        }
    }
}
