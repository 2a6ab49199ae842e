/// Which database names exist: CouchDB's rule (`couch_db:validate_dbname`), the
/// one place Settee decides it.
///
/// A name matches `^[a-z][a-z0-9_$()+\\-/]*(\\.[0-9]{10,})?$` (the optional tail is a
/// shard timestamp CouchDB also admits), at most 238 bytes, or it is one of
/// CouchDB's system databases. A system name under a prefix (`app/_users`)
/// already matches the pattern.
public enum DatabaseName {
    /// `?SYSTEM_DATABASES` of `couch_db.hrl`.
    public static let systemDatabases: Set<String> = [
        "_dbs", "_global_changes", "_metadata", "_nodes", "_replicator", "_users",
    ]

    public static let maxLength = 238

    public static func isValid(_ name: String) -> Bool {
        guard name.utf8.count <= maxLength else { return false }
        return matchesPattern(name) || systemDatabases.contains(name)
    }

    private static func matchesPattern(_ name: String) -> Bool {
        var bytes = Substring(name).utf8[...]
        if let dot = bytes.lastIndex(of: UInt8(ascii: ".")) {
            let digits = bytes[bytes.index(after: dot)...]
            guard digits.count >= 10, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return false }
            bytes = bytes[..<dot]
        }
        guard let first = bytes.first, (0x61...0x7A).contains(first) else { return false }
        return bytes.allSatisfy { b in
            (0x61...0x7A).contains(b) || (0x30...0x39).contains(b) || "_$()+/-".utf8.contains(b)
        }
    }
}
