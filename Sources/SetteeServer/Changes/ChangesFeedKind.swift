/// `feed=` of `_changes` (`live` is CouchDB's other name for `continuous`).
enum ChangesFeedKind: String, Hashable, Sendable {
    case normal, longpoll, continuous, eventsource

    init(parameter: String?) throws {
        switch parameter ?? "normal" {
        case "live": self = .continuous
        case let text:
            guard let kind = ChangesFeedKind(rawValue: text) else {
                throw CouchError.badRequest("Supported `feed` types: normal, continuous, live, longpoll, eventsource")
            }
            self = kind
        }
    }

    /// Feeds that write a line per change as it comes.
    var isLineByLine: Bool { self == .continuous || self == .eventsource }
}
