internal import FoundationEssentials
public import SetteeServer
import Synchronization

/// `/_node/_local/_config` writes into the ini file the server started with: the one
/// line changed (comments and order kept), the whole file replaced at once (a
/// temporary file beside it, fsync'd, renamed over it), so a crash leaves the old
/// file or the new one, never half of either.
public final class INIConfigPersistence: ConfigPersistence {
    private let file: Mutex<INIFile>

    public init(_ file: INIFile) { self.file = Mutex(file) }

    public func save(section: String, key: String, value: String?) throws {
        try file.withLock { (current: inout INIFile) throws in
            var updated = current
            if let value {
                if let entry = updated.value(key, in: section) {
                    updated.replaceValue(of: entry, with: value)
                } else {
                    updated.append(key, value, in: section)
                }
            } else {
                updated.remove(key, in: section)
            }
            try updated.save()
            current = updated
        }
    }

    public func load() throws -> [ConfigSetting] {
        let path = file.withLock { $0.source }
        let reread = try INIFile(contentsOf: path)
        file.withLock { $0 = reread }
        return Self.settings(of: reread)
    }

    /// Every setting of `file`, the last of repeated keys winning.
    public static func settings(of file: INIFile) -> [ConfigSetting] {
        file.sectionNames.flatMap { section in
            file.settings(in: section).map { ConfigSetting(section: section, key: $0.key, value: $0.value) }
        }
    }
}
