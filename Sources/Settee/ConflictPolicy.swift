internal import SetteeJSON

/// How a database merges a document's conflicting revisions (README "Conflicts"): declared
/// in a design document's `conflicts` member, so the declaration replicates with the data
/// and every peer (another Settee, this program elsewhere) merges the same way.
///
///     try await notes.setConflictPolicy(.merge(key: "id", order: "at"))
///     try await scores.setConflictPolicy(.max(field: "updatedAt"))
///
/// The leaves a policy reads are the document's live leaves in canonical order: the
/// winner as CouchDB picks it, then the others in `_conflicts` order. A resolution writes
/// the merged body as a child of the winner and a tombstone (keeping its body) on each
/// losing leaf, with CouchDB's revision ids, so peers that resolve the same leaves write
/// identical revisions.
public enum ConflictPolicy: Sendable, Hashable {
    /// `_merge`: the union of the leaves' members, recursively; arrays of objects merged
    /// by their `key` member, then ordered by their `order` member (`order` needs `key`);
    /// anything else is the winner's value.
    case merge(key: String? = nil, order: String? = nil)
    /// `_max`: the body of the leaf whose `field` is greatest (raw collation; a leaf
    /// without it is below every leaf with it).
    case max(field: String)
    /// `_winner`: the winner's body as it is (the losing leaves are only deleted).
    case winner
    /// A JavaScript `function (leaves, winner) { return merged; }`, run by the node's
    /// JavaScript engine with the design functions' limits. It must be a pure function of
    /// its arguments (no `Date.now()`, no `Math.random()`): two peers only agree if it is.
    case javaScript(String)

    /// The design document's `conflicts` member.
    var declaration: JSONValue {
        var members: JSONObject
        switch self {
        case .merge(let key, let order):
            members = ["policy": "_merge"]
            if let key { members["key"] = .string(key) }
            if let order { members["order"] = .string(order) }
        case .max(let field): members = ["policy": "_max", "field": .string(field)]
        case .winner: members = ["policy": "_winner"]
        case .javaScript(let source): members = ["policy": .string(source)]
        }
        return .object(members)
    }

    /// The policy a `conflicts` member declares; nil for one this version does not know.
    init?(declaration: JSONValue) {
        guard let policy = declaration["policy"]?.stringValue else { return nil }
        switch policy {
        case "_merge": self = .merge(key: declaration["key"]?.stringValue, order: declaration["order"]?.stringValue)
        case "_max":
            guard let field = declaration["field"]?.stringValue else { return nil }
            self = .max(field: field)
        case "_winner": self = .winner
        case _ where policy.hasPrefix("_"): return nil
        default: self = .javaScript(policy)
        }
    }
}

/// What ``Database/resolveConflicts()`` did.
public struct ConflictResolutionReport: Sendable, Hashable {
    /// Documents whose conflict was resolved.
    public let resolved: Int
    /// Documents the policy failed on (it threw, returned something other than an object,
    /// or ran past its limits), each left in conflict exactly as it was, and why.
    public let failed: [Failure]
    /// Documents still in conflict afterwards (the failed ones, design documents, which no
    /// policy resolves, and any a replication put in conflict meanwhile).
    public let remaining: Int

    public struct Failure: Sendable, Hashable {
        public let id: String
        public let reason: String
    }
}
