/*
 Sneakernet (issue #44, item 4): a `file://` endpoint names a database of a Settee data
 directory on this machine, typically on a USB stick carried between two devices that never
 share a network. `file:///media/stick/carry/notes` is the database `notes` of the directory
 `/media/stick/carry`: the last path segment is the database (percent-decoded, as in an
 http URL, so `a%2Fb` is `a/b`), everything before it the directory. A backup made by
 `settee backup` is laid out as a data directory, so it can be named the same way.

 The directory is opened with the store directly, as `settee serve` opens its own: under its
 `DataDirectoryLock`, so a directory a running server (or a program embedding Settee) has
 open is refused, and two replications in one process share one open (`FileDirectory`).
 Its identity for checkpoints is the directory's own `.uuid` (`FileDirectory`), so the next
 carry resumes where the last one stopped, in both directions.
*/
internal import FoundationEssentials
public import SetteeStore

/// A `file://` database URL taken apart.
public struct FileEndpoint: Sendable, Equatable {
    /// The data directory, an absolute path without a trailing `/`.
    public let directory: String
    /// The database's name, decoded.
    public let name: String
    /// The URL as given, for messages.
    public let url: String

    /// Whether `text` is meant as a `file://` endpoint.
    public static func isFileURL(_ text: String) -> Bool { text.lowercased().hasPrefix("file://") }

    /// - Throws: `ReplicationError.invalidEndpoint` for a host other than `localhost`
    ///   (RFC 8089 §2: a file URL names a file of this machine), a relative or missing
    ///   directory, or an invalid database name.
    public init(url text: String) throws {
        guard Self.isFileURL(text) else { throw ReplicationError.invalidEndpoint(text) }
        let rest = text.dropFirst("file://".count)
        // RFC 8089 §2: `file:///path` or `file://localhost/path`.
        let path: Substring
        if rest.hasPrefix("/") {
            path = rest
        } else if rest.lowercased().hasPrefix("localhost/") {
            path = rest.dropFirst("localhost".count)
        } else {
            throw ReplicationError.invalidEndpoint(text)
        }
        var segments = path.split(separator: "/", omittingEmptySubsequences: true)
        guard segments.count >= 2, let last = segments.popLast(), let name = URLText.percentDecoded(last),
              DatabaseName.isValid(name) else {
            throw ReplicationError.invalidEndpoint(text)
        }
        var decoded: [String] = []
        for segment in segments {
            guard let part = URLText.percentDecoded(segment), !part.contains("/") else {
                throw ReplicationError.invalidEndpoint(text)
            }
            decoded.append(part)
        }
        directory = "/" + decoded.joined(separator: "/")
        self.name = name
        url = text
    }
}
