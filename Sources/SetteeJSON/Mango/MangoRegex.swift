/// A `$regex` operand compiled with Swift Regex, whose syntax is PCRE-like (as
/// CouchDB's Erlang `re` module is). Matching is unanchored, like `re:run/3`, and works
/// on Unicode scalars rather than grapheme clusters, which is closer to PCRE.
struct MangoRegex: @unchecked Sendable {
    // Regex<AnyRegexOutput> is immutable after construction; it is safe to share.
    let pattern: String
    private let regex: Regex<AnyRegexOutput>

    /// Returns nil when `pattern` is not a valid regular expression.
    init?(_ pattern: String) {
        guard let regex = try? Regex(pattern) else { return nil }
        self.pattern = pattern
        self.regex = regex.matchingSemantics(.unicodeScalar)
    }

    func matches(_ string: String) -> Bool {
        ((try? regex.firstMatch(in: string)) ?? nil) != nil
    }
}
