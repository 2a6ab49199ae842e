/// A JSON object: members in the order they were written. Lookups are linear,
/// which is faster than hashing for the small objects documents are made of.
/// On a duplicate key the first member wins, as in CouchDB (`lists:keyfind`).
public struct JSONObject: Sendable, Hashable, RandomAccessCollection {
    public struct Member: Sendable, Hashable {
        public var key: String
        public var value: JSONValue
        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    public private(set) var members: [Member]

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
        get { members.first(where: { $0.key == key })?.value }
        set {
            guard let newValue else {
                members.removeAll { $0.key == key }
                return
            }
            if let i = members.firstIndex(where: { $0.key == key }) {
                members[i].value = newValue
            } else {
                members.append(Member(key: key, value: newValue))
            }
        }
    }

    public mutating func append(_ key: String, _ value: JSONValue) {
        members.append(Member(key: key, value: value))
    }

    public mutating func removeAll(where shouldRemove: (Member) throws -> Bool) rethrows {
        try members.removeAll(where: shouldRemove)
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self.init(elements) }
}
