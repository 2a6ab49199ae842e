internal import FoundationEssentials
internal import Glibc
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
            try Self.replace(updated.source, with: updated.text)
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

    /// Writes `text` to a temporary file beside `path` with `path`'s mode, syncs it, and
    /// renames it over `path`; then syncs the directory so the rename lasts.
    static func replace(_ path: String, with text: String) throws(ConfigError) {
        let temporary = path + ".settee-tmp"
        var status = stat()
        let mode = stat(path, &status) == 0 ? status.st_mode & 0o7777 : 0o644
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw .unwritable(path: path, reason: String(cString: strerror(errno))) }
        let bytes = Array(text.utf8)
        var offset = 0
        var failure: String?
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { failure = String(cString: strerror(errno)); break }
            offset += n
        }
        if failure == nil, fsync(fd) != 0 { failure = String(cString: strerror(errno)) }
        close(fd)
        if failure == nil, rename(temporary, path) != 0 { failure = String(cString: strerror(errno)) }
        if let failure {
            unlink(temporary)
            throw .unwritable(path: path, reason: failure)
        }
        let directory = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        let dirFD = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirFD >= 0 { fsync(dirFD); close(dirFD) }
    }
}
