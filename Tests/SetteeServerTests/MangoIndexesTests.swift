import SetteeStore
import Testing
@testable import SetteeServer

/// How a query answers an index that could not be brought up to date (#47 item 1).
@Suite struct MangoIndexesTests {
    struct Stopped: Error, CustomStringConvertible {
        var description: String { "the map function was stopped" }
    }

    /// A SQLite failure names its code and message (not the SQL) and where the index
    /// stays; a 500 with its own error, not the generic "could not be accessed".
    @Test func aFailedRefreshAnswersWhatFailedAndWhereTheIndexStays() {
        let sqlite = KeyIndexFailure(error: StoreError.sqlite(code: 5, message: "database is locked",
                                                              sql: "INSERT INTO key_index_0a(key) VALUES (?)"),
                                     sequence: 4_000)
        #expect(sqlite.couchError(index: "_design/a/by-age") == CouchError(500, "index_update_failed",
            "The index _design/a/by-age could not be brought up to date (SQLite error 5: database is locked). "
            + "It stays at update seq 4000; the next query that needs it tries again."))
        // A full disk: CouchDB's answer when it has no room to update an index (fabric_view_map.erl).
        let full = KeyIndexFailure(error: StoreError.sqlite(code: 13, message: "database or disk is full", sql: "COMMIT"),
                                   sequence: 4_000)
        #expect(full.couchError(index: "_design/a/by-age")
                == CouchError(507, "insufficent_storage", "not enough room to update index"))
        let other = KeyIndexFailure(error: Stopped(), sequence: 0)
        #expect(other.couchError(index: "_design/v/c").reason.contains("(the map function was stopped)"))
    }
}
