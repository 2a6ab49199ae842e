/// `Range` and `Accept-Encoding` for attachment downloads.
enum ByteRange {
    /// The byte ranges `header` asks for within `length` bytes, in request order, or nil
    /// to send the whole attachment with 200. CouchDB's rules (chttpd_db.erl
    /// `parse_ranges` over mochiweb's parse of `bytes=first-last, first-, -suffix`):
    /// - a header that does not parse, no ranges, a `0-` range anywhere, or ten
    ///   ranges or more: the whole attachment (RFC 9110 §14.2 lets a server ignore Range);
    /// - a last byte past the end is the last byte; `first-` runs to the end; `-n` is
    ///   the last n bytes (all of them when n is larger);
    /// - a range that ends before it starts, also after that clamping (so one that
    ///   starts past the end): 416 `requested_range_not_satisfiable`.
    static func parse(_ header: String, length: Int64) throws -> [Range<Int64>]? {
        guard header.hasPrefix("bytes=") else { return nil }
        let specs = header.dropFirst("bytes=".count).split(separator: ",").map { $0.trimmingCharacters() }
            .filter { !$0.isEmpty }
        var ranges: [Range<Int64>] = []
        for spec in specs {
            guard let dash = spec.firstIndex(of: "-") else { return nil }
            let firstText = String(spec[..<dash]), lastText = String(spec[spec.index(after: dash)...])
            let first: Int64, last: Int64
            switch (Int64(firstText), Int64(lastText)) {
            case (nil, let suffix?) where firstText.isEmpty:
                first = max(0, length - suffix)
                last = length - 1
            case (0, nil) where lastText.isEmpty:
                return nil
            case (let start?, nil) where lastText.isEmpty:
                first = start
                last = length - 1
            case (let start?, let end?):
                first = start
                last = min(end, length - 1)
                guard end >= start else { throw unsatisfiable(length) }
            default:
                return nil
            }
            guard first >= 0, last >= first else { throw unsatisfiable(length) }
            ranges.append(first..<(last + 1))
        }
        return ranges.isEmpty || ranges.count >= 10 ? nil : ranges
    }

    /// RFC 9110 §15.5.17: 416 with `Content-Range: bytes */length`.
    private static func unsatisfiable(_ length: Int64) -> CouchError {
        CouchError(416, "requested_range_not_satisfiable", "Requested range not satisfiable",
                   headers: [("Content-Range", "bytes */\(length)")])
    }

    /// `Content-Range` of one range (RFC 9110 §14.4).
    static func contentRange(_ range: Range<Int64>, of length: Int64) -> String {
        "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(length)"
    }

    /// Whether `Accept-Encoding` takes gzip (not refused with `q=0`, RFC 9110 §12.5.3).
    static func acceptsGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        return header.split(separator: ",").contains { item in
            let parts = item.split(separator: ";").map { $0.trimmingCharacters().lowercased() }
            guard let coding = parts.first, coding == "gzip" || coding == "x-gzip" else { return false }
            return !parts.dropFirst().contains { $0.replacingSpaces() == "q=0" || $0.hasPrefix("q=0.0") && Double($0.dropFirst(2)) == 0 }
        }
    }
}

private extension StringProtocol {
    func trimmingCharacters() -> String {
        var s = Substring(self)
        while s.first == " " || s.first == "\t" { s.removeFirst() }
        while s.last == " " || s.last == "\t" { s.removeLast() }
        return String(s)
    }

    func replacingSpaces() -> String { String(filter { $0 != " " }) }
}
