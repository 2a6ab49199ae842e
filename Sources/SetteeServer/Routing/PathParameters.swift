/// The decoded values of a route's `{name}` segments.
struct PathParameters: Sendable {
    /// Every name a route pattern may use; `{attachment...}` takes the rest of the path.
    enum Name: String, Sendable, CaseIterable {
        case db, docid, ddoc, localid, attachment, node, section, key, view, path, type, name
    }

    /// Few per request (at most four), so a list beats a dictionary.
    private var values: [(Name, String)] = []

    subscript(name: Name) -> String? {
        get { values.first { $0.0 == name }?.1 }
        set {
            values.removeAll { $0.0 == name }
            if let newValue { values.append((name, newValue)) }
        }
    }

    var db: String? { self[.db] }
    var attachment: String? { self[.attachment] }

    /// The full document id: `{docid}`, or `_design/{ddoc}`, or `_local/{localid}`.
    var docID: String? {
        if let id = self[.docid] { return id }
        if let name = self[.ddoc] { return "_design/" + name }
        if let name = self[.localid] { return "_local/" + name }
        return nil
    }
}
