/// A JSON object: members in the order they were written. Lookups are linear,
/// which is faster than hashing for the small objects documents are made of.
/// A parsed object has no repeated key: `JSONReader` keeps the last, as CouchDB does
/// (`JSONObject+DuplicateKeys`). In one built from `init(members:)` the first member wins.
///
/// Once an object is set past `indexThreshold` members (an answer built key by key:
/// `_missing_revs` over a replicator's 1,000 ids), it keeps `position`, each key's first
/// index, so a set costs one hash instead of a scan of the keys set before it (building
/// n keys was O(n²)). Parsed objects get no index until they are set into, so reading a
/// large body costs what it did. `position` is a cache: equality and hashing are the
/// members' alone.
public struct JSONObject: Sendable, Hashable, RandomAccessCollection {
    public struct Member: Sendable, Hashable {
        public var key: String
        public var value: JSONValue
        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// Past this many members a set builds `position`; below it a scan is cheaper than hashing.
    static let indexThreshold = 32

    public private(set) var members: [Member]
    /// Each key's first member index, or nil while the object is small (or only parsed).
    private var position: [String: Int]?

    public init() { members = [] }
    public init(_ pairs: [(String, JSONValue)]) { members = pairs.map { Member(key: $0.0, value: $0.1) } }
    public init(members: [Member]) { self.members = members }

    public var startIndex: Int { members.startIndex }
    public var endIndex: Int { members.endIndex }
    public subscript(position: Int) -> Member { members[position] }

    public var keys: [String] { members.map(\.key) }

    /// The value of the first member named `key`. Setting `nil` removes every
    /// member with that key; setting a value replaces the first or appends.
    public subscript(key: String) -> JSONValue? {
        get { firstIndex(ofKey: key).map { members[$0].value } }
        set {
            guard let newValue else {
                removeAll { $0.key == key }
                return
            }
            if position == nil, members.count >= Self.indexThreshold { buildPosition() }
            if let i = firstIndex(ofKey: key) {
                members[i].value = newValue
            } else {
                append(key, newValue)
            }
        }
    }

    public mutating func append(_ key: String, _ value: JSONValue) {
        if position != nil, position?[key] == nil { position?[key] = members.count }
        members.append(Member(key: key, value: value))
    }

    /// Removes the members `shouldRemove` picks; the indexes after them shift, so
    /// `position` is rebuilt (or dropped when the object is small again).
    public mutating func removeAll(where shouldRemove: (Member) throws -> Bool) rethrows {
        let before = members.count
        try members.removeAll(where: shouldRemove)
        guard position != nil, members.count != before else { return }
        position = nil
        if members.count >= Self.indexThreshold { buildPosition() }
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool { lhs.members == rhs.members }
    public func hash(into hasher: inout Hasher) { hasher.combine(members) }

    private func firstIndex(ofKey key: String) -> Int? {
        if let position { return position[key] }
        return members.firstIndex(where: { $0.key == key })
    }

    private mutating func buildPosition() {
        var index: [String: Int] = [:]
        index.reserveCapacity(members.count * 2)
        for (i, member) in members.enumerated() where index[member.key] == nil { index[member.key] = i }
        position = index
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self.init(elements) }
}
