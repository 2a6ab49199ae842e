import SetteeDocuments
import SetteeJSON
import SetteeStore
import SetteeViews

/*
 One document's conflict put through the database's policy: its live leaves read in
 canonical order (the winner, then CouchDB's `_conflicts` order), the policy's merged
 body, and the `Database.ConflictResolution` the store writes: the merged body as a
 child of the winner (none when it is the winner's own body), and a tombstone on each
 losing leaf whose body is that leaf's body. Bodies are written by `JSONWriter`, so
 two peers holding the same leaves write the same bytes and so the same revisions.

 A JavaScript policy is called as `policy(leaves, winner)`: `leaves` the documents
 (`_id`, `_rev` and the body) in canonical order, `winner` the first of them. It runs
 on the node's `JavaScriptService` (its threads, its time and memory limits), before
 any write. It must return an object; its `_`-prefixed members are ignored.
*/

/// The policy a database declares, with the design document it comes from (none for
/// a program's own, `NativeConflictPolicy`).
struct DeclaredConflictPolicy: Sendable {
    let policy: ConflictPolicy
    let designDocument: DesignDocuments.Revision?

    /// Where the policy comes from, for logs and failure records: `_design/x@REV`, or the
    /// native policy's name.
    var origin: String {
        if let designDocument { return designDocument.id + "@" + designDocument.rev }
        if case .native(let native) = policy { return native.name }
        return "no design document"
    }

    /// The policy of `database`: the first design document (in id order) declaring one.
    /// Nil when none does; a malformed declaration (replicated in before the check
    /// existed) is skipped, as if absent. System databases (`_users`, `_replicator`) have
    /// none: their documents pass rules of their own (`WritePolicy`) that a resolution,
    /// the server's own write, does not go through.
    static func find(in database: Database) async throws -> DeclaredConflictPolicy? {
        guard !database.name.hasPrefix("_") else { return nil }
        for (id, body) in try await DesignDocuments.all(database) where body["conflicts"] != nil {
            guard let policy = try? ConflictPolicy.declared(in: body) else { continue }
            let revision = try await DesignDocuments.revision(id, in: database)
            return DeclaredConflictPolicy(policy: policy, designDocument: revision)
        }
        return nil
    }
}

/// Why a policy could not resolve a document: reported, and the conflict left as it is.
struct ConflictPolicyFailure: Error, Sendable, Equatable {
    let reason: String
}

enum ConflictPolicyRun {
    /// The resolution of `document` (read with all its leaves) by `declared`; nil when
    /// it is not in conflict.
    /// - Throws: `ConflictPolicyFailure` when the policy fails on it.
    static func resolution(of document: StoredDocument, by declared: DeclaredConflictPolicy, in database: Database,
                           service: JavaScriptService) async throws(ConflictPolicyFailure) -> Database.ConflictResolution? {
        guard let winner = document.tree.winner, !winner.isDeleted, !document.tree.conflicts.isEmpty else { return nil }
        let leaves = [winner.rev] + document.tree.conflicts
        var bodies: [JSONValue] = []
        for rev in leaves {
            guard let bytes = document.revisions.first(where: { $0.rev == rev })?.body,
                  let body = try? JSONReader.parse(bytes) else {
                throw ConflictPolicyFailure(reason: "the body of leaf \(rev) could not be read")
            }
            bodies.append(body)
        }
        let merged: JSONValue
        switch declared.policy {
        case .merge(let key, let order): merged = ConflictMerge.merge(bodies, key: key, order: order)
        case .max(let field): merged = bodies[ConflictMerge.maxLeaf(bodies, field: field)]
        case .winner: merged = bodies[0]
        case .javaScript(let source):
            merged = try await run(source, document.id, leaves, bodies, declared, database, service)
        case .native(let native):
            merged = try run(native, documents(document.id, leaves, bodies))
        }
        let mergedBytes = JSONWriter.serialize(merged)
        return Database.ConflictResolution(
            id: document.id, leaves: leaves,
            mergedBody: mergedBytes == JSONWriter.serialize(bodies[0]) ? nil : mergedBytes,
            tombstoneBodies: bodies.dropFirst().map { JSONWriter.serialize($0) })
    }

    /// Calls the JavaScript policy: the merged body, without `_` members.
    private static func run(_ source: String, _ id: String, _ leaves: [RevisionID], _ bodies: [JSONValue],
                            _ declared: DeclaredConflictPolicy, _ database: Database,
                            _ service: JavaScriptService) async throws(ConflictPolicyFailure) -> JSONValue {
        let documents = documents(id, leaves, bodies)
        guard let designDocument = declared.designDocument else {
            throw ConflictPolicyFailure(reason: "a JavaScript policy without its design document")
        }
        let function = policyFunction(source, designDocument.code(database))
        let result: JSONValue
        do {
            // The reduce entry point calls fn(a, b, false) and hands back its value:
            // exactly policy(leaves, winner); the third argument is ignored.
            result = try await service.call(function) { (engine, handle) throws(JavaScriptError) in
                try engine.reduce(handle, keys: .array(documents), values: documents[0], rereduce: false)
            }
        } catch let error as CouchError {
            throw ConflictPolicyFailure(reason: error.reason)
        } catch {
            throw ConflictPolicyFailure(reason: "the policy failed: \(error)")
        }
        return try mergedObject(result)
    }

    /// Calls a program's own policy, with the same arguments and checks as a JavaScript one.
    private static func run(_ native: NativeConflictPolicy,
                            _ documents: [JSONValue]) throws(ConflictPolicyFailure) -> JSONValue {
        let result: JSONValue
        do {
            result = try native.merge(documents)
        } catch {
            throw ConflictPolicyFailure(reason: "the policy failed: \(error)")
        }
        return try mergedObject(result)
    }

    /// The leaves as a policy function reads them: `_id`, `_rev`, then the body's members.
    private static func documents(_ id: String, _ leaves: [RevisionID], _ bodies: [JSONValue]) -> [JSONValue] {
        zip(leaves, bodies).map { rev, body in
            var document: JSONObject = ["_id": .string(id), "_rev": .string(rev.description)]
            for member in body.objectValue ?? JSONObject() { document.append(member.key, member.value) }
            return .object(document)
        }
    }

    /// A policy's result as a merged body: an object, without its `_` members.
    private static func mergedObject(_ result: JSONValue) throws(ConflictPolicyFailure) -> JSONValue {
        guard var object = result.objectValue else {
            throw ConflictPolicyFailure(reason: "the policy returned \(result.typeName), not an object")
        }
        object.removeAll { $0.key.hasPrefix("_") }
        return .object(object)
    }

    static func policyFunction(_ source: String, _ code: DesignCode) -> DesignFunction {
        DesignFunction(code: code, name: "conflicts/policy", source: source, scope: .designDocument,
                       failure: "Compilation of the conflicts policy failed: ")
    }
}
