@testable import SetteeReplicator
@testable import SetteeServer
import SetteeStore
import Testing

/// The store's one table (`StoreError.couchAnswer`) is what both the server and the
/// replicator's `LocalPeer` say of a store error: the same error word and reason for the
/// same refused write, whichever of them reports it.
@Suite struct CouchAnswerTests {
    static let storeErrors: [StoreError] = CouchErrorMappingTests.storeRows.compactMap { $0.error as? StoreError } + [
        .rejected(.refused(status: 400, error: "compilation_error", reason: "c")),
        .rejected(.refused(status: 500, error: "os_process_error", reason: "OS process timed out.")),
        .directoryLocked(path: "p"),
    ]

    @Test(arguments: storeErrors)
    func localPeerAndServerAnswerTheSame(error: StoreError) {
        let server = CouchError(mapping: error)
        let (word, reason) = LocalPeer.describe(error)
        #expect(word == server.error)
        #expect(reason == server.reason)
        #expect(error.couchAnswer == CouchAnswer(server.status, server.error, server.reason))
    }

    @Test func everyStoreRowOfTheMappingTestIsAStoreError() {
        #expect(Self.storeErrors.count == CouchErrorMappingTests.storeRows.count + 3)
    }

    /// A validation's 5xx refusal is design document code's (logged once a minute per client).
    @Test func aServerFaultRefusalIsMarkedAsJavaScripts() {
        #expect(CouchError(mapping: StoreError.rejected(.refused(status: 500, error: "e", reason: "r"))).isFromJavaScript)
        #expect(!CouchError(mapping: StoreError.rejected(.refused(status: 400, error: "e", reason: "r"))).isFromJavaScript)
    }
}
