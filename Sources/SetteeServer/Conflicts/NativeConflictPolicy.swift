package import SetteeJSON

/// A conflict policy given in Swift by a program embedding Settee (the `Settee` library's
/// closure policy), rather than declared in a design document. It lives in the node's
/// memory for one database (`ConflictResolver.setNativePolicy`), does not replicate, and
/// takes precedence over the database's declared policy while it is set. It is run exactly
/// where a declared policy runs (`ConflictPolicyRun`), off the request path, never inside
/// a write, and must be as deterministic as a JavaScript one: two peers holding the same
/// leaves only write the same revisions if it is a pure function of them.
package struct NativeConflictPolicy: Sendable, Equatable {
    /// Names this policy in logs and in the record of documents it failed on; a new
    /// policy needs a new name (a failure is not retried under the same one).
    package let name: String
    /// The merged body of `leaves`: the live leaves as documents (`_id`, `_rev`, the body;
    /// no attachments) in canonical order, the winner first. Must return an object; its
    /// `_`-prefixed members are ignored. A throw leaves the conflict as it is.
    package let merge: @Sendable (_ leaves: [JSONValue]) throws -> JSONValue

    package init(name: String, merge: @escaping @Sendable (_ leaves: [JSONValue]) throws -> JSONValue) {
        self.name = name
        self.merge = merge
    }

    package static func == (a: NativeConflictPolicy, b: NativeConflictPolicy) -> Bool { a.name == b.name }
}
