import SetteeJSON
import SetteeViews

/*
 A database's conflict policy (issue 42, item 3), declared in a design document so
 that it replicates with the data:

     "conflicts": {"policy": "_merge", "key": "id", "order": "at"}
     "conflicts": {"policy": "_max", "field": "updated_at"}
     "conflicts": {"policy": "_winner"}
     "conflicts": {"policy": "function(leaves, winner) { return merged; }"}

 A database has at most one policy: the first design document, in id order, that
 declares `conflicts`. The declaration is checked when the design document is saved
 (replicated ones too), as CouchDB checks views: anything malformed is refused with
 400 `invalid_design_doc`; a JavaScript policy that does not compile with 400
 `compilation_error` (`DesignDocumentCheck`). Members other than those of the
 policy's kind are refused too, so that a misspelt `"kee"` is not silently ignored.
 The semantics of each policy are `ConflictMerge`'s and README "Conflicts".
*/

/// A conflict policy, parsed from a design document's `conflicts` member.
enum ConflictPolicy: Sendable, Equatable {
    /// Recursive union of object members; arrays of objects merged by `key`, ordered by `order`.
    case merge(key: String?, order: String?)
    /// The leaf with the greatest `field` (last writer wins by the app's own clock).
    case max(field: String)
    /// The winner as it is: the losing leaves are deleted.
    case winner
    /// `function(leaves, winner) { return merged; }`, run by the node's JavaScript service.
    case javaScript(source: String)
    /// A program's own policy (the `Settee` library), never declared in a design document.
    case native(NativeConflictPolicy)

    /// Why a design document's `conflicts` member is refused.
    struct Malformed: Error, Equatable {
        let reason: String
    }

    /// The policy `designDocument` declares, nil when it declares none.
    /// - Throws: `Malformed` when its `conflicts` member is not a valid policy.
    static func declared(in designDocument: JSONValue) throws(Malformed) -> ConflictPolicy? {
        guard let declaration = designDocument["conflicts"] else { return nil }
        guard let members = declaration.objectValue else {
            throw Malformed(reason: "`conflicts` must be an object, e.g. {\"policy\": \"_merge\"}")
        }
        guard let policy = members["policy"]?.stringValue, !policy.isEmpty else {
            throw Malformed(reason: "`conflicts.policy` must be `_merge`, `_max`, `_winner` or a JavaScript function")
        }
        switch policy {
        case "_merge":
            try allowOnly(["policy", "key", "order"], in: members)
            let key = try name("key", in: members)
            let order = try name("order", in: members)
            if order != nil && key == nil { throw Malformed(reason: "`conflicts.order` needs `conflicts.key`") }
            return .merge(key: key, order: order)
        case "_max":
            try allowOnly(["policy", "field"], in: members)
            guard let field = try name("field", in: members) else {
                throw Malformed(reason: "`_max` needs `conflicts.field`, the member to compare")
            }
            return .max(field: field)
        case "_winner":
            try allowOnly(["policy"], in: members)
            return .winner
        default:
            guard !policy.hasPrefix("_") else { throw Malformed(reason: "unknown built-in conflicts policy \(policy)") }
            try allowOnly(["policy"], in: members)
            guard !FunctionSource.isMissing(policy) else { throw Malformed(reason: "`conflicts.policy` is empty") }
            return .javaScript(source: policy)
        }
    }

    private static func allowOnly(_ allowed: Set<String>, in members: JSONObject) throws(Malformed) {
        if let extra = members.keys.first(where: { !allowed.contains($0) }) {
            throw Malformed(reason: "unknown member `conflicts.\(extra)` for this policy")
        }
    }

    private static func name(_ member: String, in members: JSONObject) throws(Malformed) -> String? {
        guard let value = members[member] else { return nil }
        guard let name = value.stringValue, !name.isEmpty else {
            throw Malformed(reason: "`conflicts.\(member)` must be a non-empty string")
        }
        return name
    }
}
