/// The request methods the route table can name. A method outside this set
/// matches no handler and is answered 405 with the path's `Allow`.
enum HTTPMethod: String, Sendable, Hashable, CaseIterable, Comparable {
    case GET, HEAD, POST, PUT, DELETE, COPY

    static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
