/// Body framing and connection decisions taken from a parsed header section.
extension RequestParser {
    /// Decides how the body is delimited (RFC 9112 §6.3).
    /// - Throws: 400 material for conflicting or invalid framing, 413 for a declared
    ///   length over the limit (answered before reading any of the body).
    static func framing(of headers: HTTPHeaders, version: HTTPVersion, limits: Limits) throws(HTTPError) -> BodyFraming {
        let transferEncodings = headers.values(for: "Transfer-Encoding")
        let contentLengths = headers.values(for: "Content-Length")
        if !transferEncodings.isEmpty {
            // RFC 9112 §6.1: TE and CL together "ought to be handled as an error" (request
            // smuggling); a server MAY reject it, and we do.
            guard contentLengths.isEmpty else { throw .malformedRequest("Transfer-Encoding with Content-Length") }
            // RFC 9112 §6.1: TE in an HTTP/1.0 request is faulty framing.
            guard version == .http11 else { throw .malformedRequest("Transfer-Encoding in HTTP/1.0") }
            // RFC 9112 §6.3 rule 4: a request whose final coding is not chunked gets 400;
            // §6.1: chunked is applied once only.
            let codings = listElements(transferEncodings)
            let chunked = codings.filter { $0.caseInsensitiveEquals("chunked") }
            guard chunked.count == 1, codings.last?.caseInsensitiveEquals("chunked") == true else {
                throw .malformedRequest("Transfer-Encoding must end with chunked, once")
            }
            // RFC 9112 §6.1: a coding the server does not implement before it gets 501.
            guard codings.count == 1 else {
                throw .unsupportedTransferCoding(codings.dropLast().joined(separator: ", "))
            }
            return .chunked
        }
        guard !contentLengths.isEmpty else { return .none }
        // RFC 9112 §6.3 rule 5 / RFC 9110 §8.6: repeated or listed values must all be one
        // valid 1*DIGIT number; anything else is an unrecoverable framing error.
        let elements = listElements(contentLengths)
        guard let first = elements.first, elements.allSatisfy({ $0 == first }),
              let length = parseLength(first) else {
            throw .malformedRequest("invalid Content-Length")
        }
        guard length <= limits.maxBodyBytes else { throw .bodyTooLarge(limit: limits.maxBodyBytes) }
        return .length(length)
    }

    /// 1*DIGIT, without overflow (RFC 9110 §8.6 warns of exactly that).
    static func parseLength(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy(\.isDigit) else { return nil }
        return Int(text)
    }

    /// RFC 9112 §9.3: HTTP/1.1 persists unless `close`; HTTP/1.0 only with `keep-alive`.
    static func isKeepAlive(_ headers: HTTPHeaders, version: HTTPVersion) -> Bool {
        let options = listElements(headers.values(for: "Connection"))
        if options.contains(where: { $0.caseInsensitiveEquals("close") }) { return false }
        if version == .http11 { return true }
        return options.contains { $0.caseInsensitiveEquals("keep-alive") }
    }

    /// RFC 9110 §10.1.1: a server MUST ignore `100-continue` in an HTTP/1.0 request.
    static func expectsContinue(_ headers: HTTPHeaders, version: HTTPVersion) -> Bool {
        guard version == .http11 else { return false }
        return listElements(headers.values(for: "Expect")).contains { $0.caseInsensitiveEquals("100-continue") }
    }

    /// Elements of comma-separated list fields (RFC 9110 §5.6.1), trimmed, empty ones dropped.
    static func listElements(_ values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",") }
            .map { String($0.trimmingPrefix(while: { $0 == " " || $0 == "\t" })) }
            .map { s in String(s.reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed()) }
            .filter { !$0.isEmpty }
    }
}
