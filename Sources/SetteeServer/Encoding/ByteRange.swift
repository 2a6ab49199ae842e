/// `Range` and `Accept-Encoding` for attachment downloads.
enum ByteRange {
    /// The one byte range `header` asks for within `length` bytes (RFC 9110 §14.1.2:
    /// `bytes=first-last`, `bytes=first-`, `bytes=-suffix`), or nil to send it all
    /// (no valid single range: RFC 9110 §14.2 lets a server ignore Range).
    /// - Throws: 416 `requested_range_not_satisfiable` with `Content-Range: bytes */length`
    ///   when the range starts past the end (RFC 9110 §15.5.17).
    static func parse(_ header: String, length: Int64) throws -> Range<Int64>? {
        guard header.hasPrefix("bytes="), !header.contains(",") else { return nil }
        let spec = header.dropFirst("bytes=".count)
        guard let dash = spec.firstIndex(of: "-") else { return nil }
        let first = spec[..<dash].trimmingCharacters(), last = spec[spec.index(after: dash)...].trimmingCharacters()
        let unsatisfiable = CouchError(416, "requested_range_not_satisfiable", "Requested range not satisfiable",
                                       headers: [("Content-Range", "bytes */\(length)")])
        if first.isEmpty {
            guard let suffix = Int64(last) else { return nil }
            guard suffix > 0, length > 0 else { throw unsatisfiable }
            return max(0, length - suffix)..<length
        }
        guard let start = Int64(first) else { return nil }
        let end = last.isEmpty ? length - 1 : Int64(last)
        guard let end, end >= start else { return nil }
        guard start < length else { throw unsatisfiable }
        return start..<(min(end, length - 1) + 1)
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
