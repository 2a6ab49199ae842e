import SetteeJSON
@testable import SetteeReplicator
import SetteeStore
import Testing

/// `_replicator`'s write rule: readable replication fields, and an `owner`.
@Suite struct ReplicatorDocumentPolicyTests {
    private let policy = ReplicatorDocumentPolicy()

    private func update(_ body: JSONValue) -> DocumentUpdate {
        DocumentUpdate(id: "r1", body: JSONWriter.serialize(body))
    }

    private func prepared(_ body: JSONValue, by writer: WriterIdentity?) throws -> JSONObject? {
        let result = try WriteContext.$writer.withValue(writer) { try policy.prepare(update(body), newEdits: true) }
        return try JSONReader.parse(result.body).objectValue
    }

    @Test func theOwnerIsTheWriter() throws {
        let ann = WriterIdentity(name: "ann", roles: [], isDatabaseAdmin: false)
        let base: JSONValue = ["source": "http://h/a", "target": "http://h/b"]
        #expect(try prepared(base, by: ann)?["owner"] == "ann")
        #expect(try prepared(base, by: .system)?["owner"] == nil)  // the manager's own writes
        #expect(try prepared(base, by: nil)?["owner"] == .null)  // undeclared: anonymous
        var others = try #require(base.objectValue)
        others["owner"] = "bob"
        #expect(throws: WriteRejection.forbidden("Can't update replication documents from other users.")) {
            _ = try prepared(.object(others), by: ann)
        }
        let admin = WriterIdentity(name: "root", roles: ["_admin"], isDatabaseAdmin: true)
        #expect(try prepared(.object(others), by: admin)?["owner"] == "bob")
    }

    @Test func unreadableDocumentsAreRefused() {
        #expect(throws: WriteRejection.forbidden("Missing replicator database")) {
            try policy.review(update(["target": "http://h/b"]), newEdits: true) { nil }
        }
        #expect(throws: WriteRejection.forbidden("{throw,{bad_request,<<\"parameter `continuous` must be a boolean\">>}}")) {
            try policy.review(update(["source": "a", "target": "b", "continuous": 1]), newEdits: true) { nil }
        }
    }
}
