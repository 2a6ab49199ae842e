/// Why the configuration could not be loaded or is unsafe to run with. Each case
/// renders a message an operator can act on (`settee` prints it and exits non-zero).
public enum ConfigError: Error, Equatable, CustomStringConvertible {
    /// A line of an ini file is not `[section]`, `key = value`, blank or a comment.
    case malformedLine(file: String, line: Int, reason: String)
    /// The config file could not be read.
    case unreadable(path: String, reason: String)
    /// A setting has a value of the wrong shape; `origin` is `file:line`, a flag or a variable.
    case invalidValue(origin: String, value: String, expected: String)
    /// No admin is configured and a non-loopback address was asked for.
    case adminRequired(addresses: [String])
    /// Writing the config file, or the data directory's `.uuid`, failed.
    case unwritable(path: String, reason: String)
    /// The TLS certificate or key could not be made or loaded.
    case tls(String)

    public var description: String {
        switch self {
        case .malformedLine(let file, let line, let reason):
            "\(file):\(line): malformed line: \(reason)"
        case .unreadable(let path, let reason):
            "cannot read config file \(path): \(reason)"
        case .invalidValue(let origin, let value, let expected):
            "\(origin): invalid value \"\(value)\": expected \(expected)"
        case .adminRequired(let addresses):
            "refusing to listen on \(addresses.joined(separator: ", ")) with no admin configured: "
                + "anyone on the network would be an admin. Add one under [admins] in the config "
                + "file or set SETTEE_ADMIN=name:password, or bind to 127.0.0.1."
        case .unwritable(let path, let reason):
            "cannot write \(path): \(reason)"
        case .tls(let reason):
            "cannot serve HTTPS: \(reason)"
        }
    }
}
