import Foundation
import Logging
import SetteeJSON
@testable import SetteeServer
import SetteeStore
import SetteeTestSupport
import Testing

/// `ConflictPolicyRun`: the same leaves, arrived in any order, in any batches, on any
/// store, give the same resolution, byte for byte, and writing it gives the same tree;
/// `_merge` by key loses no entry of any leaf.
@Suite struct ConflictPolicyRunTests {
    private func store() throws -> (DatabaseDirectory, String) {
        let path = NSTemporaryDirectory() + "settee-policy-run-" + UUID().uuidString
        var configuration = StoreConfiguration(path: path)
        configuration.readerCount = 2
        return (try DatabaseDirectory(configuration: configuration, logger: Logger(label: "test")), path)
    }

    private func hex(_ random: inout SplitMix) -> String {
        (0..<32).map { _ in String(random.next() % 16, radix: 16) }.joined()
    }

    /// 2–4 replicated leaves of "story", children of one root, each with its own entries.
    private func leaves(_ random: inout SplitMix) -> [DocumentUpdate] {
        let root = RevisionID(generation: 1, suffix: String(repeating: "0", count: 32))
        return (0..<(2 + Int(random.next() % 3))).map { leaf in
            let entries: [JSONValue] = (0..<Int(1 + random.next() % 4)).map { n in
                ["id": .string("e\(random.next() % 6)"), "at": .int(Int(random.next() % 5)), "by\(leaf)": .int(n)]
            }
            let body: JSONValue = ["title": .string("t\(random.next() % 3)"), "entries": .array(entries)]
            let rev = RevisionID(generation: 2, suffix: hex(&random))
            return DocumentUpdate(id: "story", body: JSONWriter.serialize(body), history: [rev, root])
        }
    }

    @Test func sameLeavesAnyArrivalOrderGiveTheSameResolution() async throws {
        let service = JavaScriptService(threadCount: 1)
        let declared = DeclaredConflictPolicy(policy: .merge(key: "id", order: "at"), designDocument: .init(
            id: "_design/p", rev: "1-x", body: ["conflicts": ["policy": "_merge"]], digest: ""))
        for seed in 0..<25 {
            var random = SplitMix(state: UInt64(seed))
            let updates = leaves(&random)
            var resolutions: [Database.ConflictResolution] = []
            var trees: [[String]] = []
            for arrival in 0..<2 {
                let (directory, path) = try store()
                defer { try? FileManager.default.removeItem(atPath: path) }
                let db = try directory.create("db")
                if arrival == 0 {
                    _ = try await db.update(updates, newEdits: false)
                } else {
                    for update in updates.reversed() { _ = try await db.update([update], newEdits: false) }
                }
                let document = try #require(try await db.document(id: "story", revisions: .allLeaves))
                let resolution = try #require(try await ConflictPolicyRun.resolution(
                    of: document, by: declared, in: db, service: service))
                resolutions.append(resolution)
                _ = try await db.resolveConflicts([resolution])
                let tree = try #require(try await db.document(id: "story", revisions: .none)).tree
                trees.append(tree.leaves.map { "\($0.rev) \($0.isDeleted)" })
                #expect(tree.conflicts.isEmpty)
            }
            #expect(resolutions[0].leaves == resolutions[1].leaves, "seed \(seed)")
            #expect(resolutions[0].mergedBody == resolutions[1].mergedBody, "seed \(seed)")
            #expect(resolutions[0].tombstoneBodies == resolutions[1].tombstoneBodies, "seed \(seed)")
            #expect(trees[0] == trees[1], "seed \(seed)")
            // Every entry id of every leaf is in the merged story.
            let merged = try JSONReader.parse(resolutions[0].mergedBody ?? updates[0].body)
            let ids = Set(try updates.flatMap { try JSONReader.parse($0.body)["entries"]?.arrayValue ?? [] }
                .compactMap { $0["id"]?.stringValue })
            #expect(Set(merged["entries"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []) == ids, "seed \(seed)")
        }
    }
}
