import SetteeJSON
import SetteeStore
import Synchronization

/// `[chttpd_auth] password_regexp` (or `[couch_httpd_auth]`): what a new password in a
/// users database must match, as CouchDB 3.4.3's `couch_users_db:validate_password/1`
/// reads it. The value is an Erlang list whose elements are a pattern, `{Pattern}` or
/// `{Pattern, Reason}`, e.g. `[{".{10,}", "Min length 10."}, "[A-Z]+"]`; each pattern is
/// matched anywhere in the password with PCRE (Erlang's `re`). A password that misses
/// one is 400 `bad_request` "Password does not conform to requirements." plus the
/// reason; a value that is not such a list refuses every password with CouchDB's 403
/// "Server cannot hash passwords at this time." (CouchDB logs the setting's fault).
final class PasswordRequirements: Sendable {
    struct Rule: Sendable {
        let regex: MangoRegex
        let reason: String?
    }

    /// nil: the setting cannot be read; empty: no requirement.
    private let rules = Mutex<[Rule]?>([])

    static let requirementError = "Password does not conform to requirements."
    static let serverError = "Server cannot hash passwords at this time."

    /// Takes a new value of the setting (nil: deleted).
    func set(_ value: String?) {
        let parsed = Self.parse(value ?? "")
        rules.withLock { $0 = parsed }
    }

    /// - Throws: the refusal CouchDB gives `password`.
    func check(_ password: String) throws(WriteRejection) {
        guard let current = rules.withLock({ $0 }) else { throw .forbidden(Self.serverError) }
        for rule in current where !rule.regex.matches(password) {
            let reason = rule.reason.map { Self.requirementError + " " + $0 } ?? Self.requirementError
            throw .refused(status: 400, error: "bad_request", reason: reason)
        }
    }

    /// The rules of a setting's value; nil when it is not a list of patterns.
    static func parse(_ value: String) -> [Rule]? {
        var reader = ErlangTermReader(value)
        if reader.isAtEnd { return [] }  // unset or blank
        guard let terms = reader.list(), reader.isAtEnd else { return nil }
        var rules: [Rule] = []
        for term in terms {
            let strings: [String]
            switch term {
            case .string(let pattern): strings = [pattern]
            case .tuple(let elements) where (1...2).contains(elements.count): strings = elements
            default: return nil
            }
            guard let regex = MangoRegex(strings[0]) else { return nil }
            // An empty reason counts as none (couch_users_db:get_password_regexp_and_error_msg/1).
            rules.append(Rule(regex: regex, reason: strings.count == 2 && !strings[1].isEmpty ? strings[1] : nil))
        }
        return rules
    }
}

/// Just enough of Erlang's term syntax for `password_regexp`: a list of strings and of
/// tuples of strings (`"..."` with backslash escapes).
struct ErlangTermReader {
    enum Term { case string(String), tuple([String]) }

    private let scalars: [Unicode.Scalar]
    private var position = 0

    init(_ text: String) { scalars = Array(text.unicodeScalars) }

    var isAtEnd: Bool {
        mutating get { skipBlanks(); return position == scalars.count }
    }

    mutating func list() -> [Term]? {
        guard take("[") else { return nil }
        var terms: [Term] = []
        if take("]") { return terms }
        repeat {
            if take("{") {
                var elements: [String] = []
                repeat {
                    guard let element = string() else { return nil }
                    elements.append(element)
                } while take(",")
                guard take("}") else { return nil }
                terms.append(.tuple(elements))
            } else {
                guard let element = string() else { return nil }
                terms.append(.string(element))
            }
        } while take(",")
        return take("]") ? terms : nil
    }

    private mutating func string() -> String? {
        guard take("\"") else { return nil }
        var result = String.UnicodeScalarView()
        while position < scalars.count {
            let scalar = scalars[position]
            position += 1
            if scalar == "\"" { return String(result) }
            if scalar == "\\", position < scalars.count {
                let escaped = scalars[position]
                position += 1
                result.append(escaped == "n" ? "\n" : escaped == "t" ? "\t" : escaped)
            } else {
                result.append(scalar)
            }
        }
        return nil
    }

    private mutating func take(_ symbol: Unicode.Scalar) -> Bool {
        skipBlanks()
        guard position < scalars.count, scalars[position] == symbol else { return false }
        position += 1
        return true
    }

    private mutating func skipBlanks() {
        while position < scalars.count, scalars[position].properties.isWhitespace { position += 1 }
    }
}
