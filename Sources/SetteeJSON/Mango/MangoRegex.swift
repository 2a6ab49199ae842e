internal import CPCRE2

/// A `$regex` operand compiled with PCRE2: the library (and syntax) behind Erlang's
/// `re`, which CouchDB's mango_selector uses. As there, the pattern is compiled
/// without Unicode mode (a string is matched as its UTF-8 bytes) and matching is
/// unanchored (`re:run/3`). The server uses it for `[chttpd_auth] password_regexp` too.
///
/// Backtracking is bounded: a match that takes more than `matchLimit` steps (PCRE2's
/// match limit; Erlang's `re` has one too) counts as no match, so a pattern like
/// `(a+)+$` costs each document a few milliseconds at most instead of hours.
public final class MangoRegex: @unchecked Sendable {
    // @unchecked: the compiled code and match context are read-only after init, and
    // PCRE2 allows both to be shared by concurrent matches; match data is per call.
    let pattern: String
    private let code: OpaquePointer
    private let context: OpaquePointer

    /// Steps (PCRE2 match limit) one match may take before it gives up.
    static let matchLimit: UInt32 = 200_000
    /// Backtracking memory one match may use, in KiB (PCRE2 heap limit).
    static let heapLimitKiB: UInt32 = 4_096

    /// Returns nil when `pattern` is not a valid regular expression.
    public init?(_ pattern: String) {
        var errorCode: Int32 = 0
        var errorOffset = 0
        let compiled = pattern.utf8.withContiguousStorageIfAvailable { bytes in
            pcre2_compile_8(bytes.baseAddress ?? UnsafePointer(bitPattern: 1), bytes.count, 0, &errorCode, &errorOffset, nil)
        } ?? Array(pattern.utf8).withUnsafeBufferPointer { bytes in
            pcre2_compile_8(bytes.baseAddress ?? UnsafePointer(bitPattern: 1), bytes.count, 0, &errorCode, &errorOffset, nil)
        }
        guard let compiled, let context = pcre2_match_context_create_8(nil) else {
            if let compiled { pcre2_code_free_8(compiled) }
            return nil
        }
        // JIT where the platform has it (x86-64, arm64): several times faster; the
        // limits apply to it too. Without it, the interpreter matches.
        _ = pcre2_jit_compile_8(compiled, UInt32(PCRE2_JIT_COMPLETE))
        pcre2_set_match_limit_8(context, Self.matchLimit)
        pcre2_set_heap_limit_8(context, Self.heapLimitKiB)
        self.pattern = pattern
        self.code = compiled
        self.context = context
    }

    deinit {
        pcre2_match_context_free_8(context)
        pcre2_code_free_8(code)
    }

    /// Whether `string` contains a match; false also when the match limit was reached.
    public func matches(_ string: String) -> Bool {
        guard let data = pcre2_match_data_create_from_pattern_8(code, nil) else { return false }
        defer { pcre2_match_data_free_8(data) }
        var string = string
        let result = string.withUTF8 { bytes in
            pcre2_match_8(code, bytes.baseAddress ?? UnsafePointer(bitPattern: 1), bytes.count, 0, 0, data, context)
        }
        return result >= 0
    }
}
