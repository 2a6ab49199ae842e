/*
 A CouchDB `local.ini`-style file: `[section]` headers, `key = value` settings and
 `;` comments. As in CouchDB's config loader:
   - a repeated key or section merges, and the last value wins;
   - a `;` (or `#`) at the start of a line comments it out, and ` ;` (whitespace then `;`)
     starts a trailing comment, so a value can still contain a bare `;`;
   - keys and values are trimmed.
 Anything else (text without `=`, a setting before the first section, an unclosed
 `[`) is rejected with the file name and line number, because a silently ignored
 line in a config file is a setting the operator believes is in force.

 The file keeps its lines so a setting can be rewritten in place (hashing plain
 admin passwords) without losing the operator's comments and layout.
*/
internal import Glibc
internal import SetteeReplicator
internal import FoundationEssentials

/// A parsed ini file that remembers its text for in-place rewrites.
public struct INIFile: Sendable {
    /// One `key = value` line.
    public struct Entry: Sendable, Equatable {
        public var section: String
        public var key: String
        public var value: String
        /// 1-based line number, for messages.
        public var line: Int
    }

    /// Where the text came from (a path, or a label in tests); used in messages.
    public let source: String
    /// Every setting in file order, repeats included.
    public private(set) var entries: [Entry] = []
    private var lines: [String]

    /// Parses `text`.
    /// - Throws: `ConfigError.malformedLine` for a line that is none of the accepted forms.
    public init(text: String, source: String) throws(ConfigError) {
        self.source = source
        lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.hasSuffix("\r") ? String($0.dropLast()) : String($0)
        }
        var section: String?
        for (index, raw) in lines.enumerated() {
            let line = Self.stripComment(raw).trimmingBlanks()
            if line.isEmpty { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]"), line.count > 2 else { throw malformed(index, raw, "unclosed `[section]`") }
                section = String(line.dropFirst().dropLast()).trimmingBlanks()
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw malformed(index, raw, "expected `key = value`, `[section]` or `; comment`")
            }
            let key = line[..<equals].trimmingBlanks()
            let value = line[line.index(after: equals)...].trimmingBlanks()
            guard !key.isEmpty else { throw malformed(index, raw, "empty key") }
            guard let section else { throw malformed(index, raw, "setting before any `[section]`") }
            entries.append(Entry(section: section, key: key, value: value, line: index + 1))
        }
    }

    /// Reads and parses the file at `path`.
    /// - Throws: `ConfigError.unreadable` or `.malformedLine`.
    public init(contentsOf path: String) throws(ConfigError) {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            // errno from open(2) says it the way people know ("Permission denied").
            let fd = open(path, O_RDONLY)
            let reason = fd < 0 ? String(cString: strerror(errno)) : "not UTF-8 text"
            if fd >= 0 { close(fd) }
            throw .unreadable(path: path, reason: reason)
        }
        try self.init(text: text, source: path)
    }

    /// The effective value of `key` in `section` (the last one), if set.
    public func value(_ key: String, in section: String) -> Entry? {
        entries.last { $0.section == section && $0.key == key }
    }

    /// Effective settings of `section`, last value per key, in first-seen order.
    public func settings(in section: String) -> [Entry] {
        var order: [String] = []
        var latest: [String: Entry] = [:]
        for entry in entries where entry.section == section {
            if latest[entry.key] == nil { order.append(entry.key) }
            latest[entry.key] = entry
        }
        return order.compactMap { latest[$0] }
    }

    /// Names of all sections that hold at least one setting.
    public var sectionNames: [String] {
        var seen: [String] = []
        for entry in entries where !seen.contains(entry.section) { seen.append(entry.section) }
        return seen
    }

    /// Replaces the line of `entry` with `key = value`; other lines are untouched.
    public mutating func replaceValue(of entry: Entry, with value: String) {
        guard let index = entries.firstIndex(of: entry) else { return }
        entries[index].value = value
        lines[entry.line - 1] = "\(entry.key) = \(value)"
    }

    /// Appends `key = value` to `section`, adding the section at the end if absent.
    public mutating func append(_ key: String, _ value: String, in section: String) {
        if let last = entries.last(where: { $0.section == section }) {
            lines.insert("\(key) = \(value)", at: last.line)
            for i in entries.indices where entries[i].line > last.line { entries[i].line += 1 }
            entries.append(Entry(section: section, key: key, value: value, line: last.line + 1))
        } else {
            if lines.last?.isEmpty == true { lines.removeLast() }
            lines += ["", "[\(section)]", "\(key) = \(value)", ""]
            entries.append(Entry(section: section, key: key, value: value, line: lines.count - 1))
        }
    }

    /// Removes every `key` line of `section` (an earlier duplicate would otherwise
    /// become the value); other lines, comments included, are untouched.
    public mutating func remove(_ key: String, in section: String) {
        for entry in entries.reversed() where entry.section == section && entry.key == key {
            lines.remove(at: entry.line - 1)
            entries.removeAll { $0 == entry }
            for i in entries.indices where entries[i].line > entry.line { entries[i].line -= 1 }
        }
    }

    /// Writes `text` over the file it came from, whole or not at all: to a temporary
    /// file beside it with its mode (an ini holding admins is often 0600 on purpose),
    /// synced, renamed over it; then the directory synced so the rename lasts.
    public func save() throws(ConfigError) {
        let path = source
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

    /// The file's text, including any rewrites.
    public var text: String { lines.joined(separator: "\n") }

    private func malformed(_ index: Int, _ raw: String, _ reason: String) -> ConfigError {
        .malformedLine(file: source, line: index + 1, reason: reason)
    }

    /// Drops a whole-line `;` comment, or a trailing one introduced by whitespace + `;`.
    static func stripComment(_ line: String) -> Substring {
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        if trimmed.hasPrefix(";") || trimmed.hasPrefix("#") { return "" }
        var previous: Character = "x"
        for index in line.indices {
            if line[index] == ";", previous == " " || previous == "\t" { return line[..<index] }
            previous = line[index]
        }
        return line[...]
    }
}

/// `directory/name`, as `NSString.appendingPathComponent` joins them.
func joinedPath(_ directory: String, _ name: String) -> String {
    directory.hasSuffix("/") ? directory + name : directory + "/" + name
}

/// Why a file operation failed, as the system says it ("Read-only file system"):
/// errno from the call that failed, else the error itself.
func systemReason(_ error: any Error) -> String {
    errno != 0 ? String(cString: strerror(errno)) : "\(error)"
}
