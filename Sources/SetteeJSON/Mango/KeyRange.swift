/// A range of keys: from `lower` (inclusive) up to `upper` (exclusive; nil: no end).
public struct KeyRange: Sendable, Equatable {
    public var lower: [UInt8]
    public var upper: [UInt8]?

    public init(lower: [UInt8] = [], upper: [UInt8]? = nil) {
        self.lower = lower
        self.upper = upper
    }

    /// Every key.
    public static let all = KeyRange()
}

extension KeyRange {
    mutating func raise(_ bound: [UInt8]) { if lower.lexicographicallyPrecedes(bound) { lower = bound } }
    mutating func cap(_ bound: [UInt8]) {
        if upper.map({ bound.lexicographicallyPrecedes($0) }) ?? true { upper = bound }
    }
    /// No key lies in the range.
    public var isEmpty: Bool { upper.map { !lower.lexicographicallyPrecedes($0) } ?? false }
}
