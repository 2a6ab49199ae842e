public import Logging

/// Where databases live: one SQLite file per database (and its blobs) under
/// `path`. Opens each database once and hands out the same `Database`.
///
/// API CONTRACT — implementation to be completed by the store work.
public final class DatabaseDirectory: Sendable {
    public let configuration: StoreConfiguration

    /// Opens (creating if needed) the directory at `configuration.path`.
    /// - Throws: `StoreError.io` when it cannot be created.
    public init(configuration: StoreConfiguration, logger: Logger) throws {
        self.configuration = configuration
    }

    /// Every database name, in byte order.
    public func names() throws -> [String] { [] }

    /// The open database `name`, or nil when it does not exist.
    public func database(named name: String) throws -> Database? { nil }

    /// Creates database `name`.
    /// - Throws: `.invalidDatabaseName`, `.databaseExists`.
    public func create(_ name: String) throws -> Database { throw StoreError.databaseExists(name) }

    /// Deletes database `name` and its files.
    /// - Throws: `.databaseNotFound`.
    public func delete(_ name: String) throws { throw StoreError.databaseNotFound(name) }

    /// CouchDB's database name rule: `^[a-z][a-z0-9_$()+/-]*$`, at most 238 characters.
    public static func isValidName(_ name: String) -> Bool {
        guard let first = name.utf8.first, (0x61...0x7A).contains(first), name.utf8.count <= 238 else { return false }
        return name.utf8.allSatisfy { b in
            (0x61...0x7A).contains(b) || (0x30...0x39).contains(b) || "_$()+/-".utf8.contains(b)
        }
    }
}

/// The store's settings; the executable fills them from `settee.ini`.
public struct StoreConfiguration: Sendable {
    /// The data directory (CouchDB's `[couchdb] database_dir`).
    public var path: String
    /// `_revs_limit` of new databases.
    public var defaultRevsLimit: Int = 1000
    /// Readers per database (concurrent SQLite connections for reads).
    public var readerCount: Int = 4

    public init(path: String) { self.path = path }
}
