@testable import SetteeHTTP
import Testing

private func limits(headerBytes: Int = 8192, bodyBytes: Int = 1_000_000, count: Int = 100) -> Limits {
    var l = Limits()
    l.maxHeaderBytes = headerBytes
    l.maxBodyBytes = bodyBytes
    l.maxHeaderCount = count
    return l
}

private func parse(_ text: String, limits l: Limits = limits()) throws(HTTPError) -> (head: RequestHead, end: Int)? {
    try RequestParser(limits: l).parse(Array(text.utf8))
}

private func rejects(_ text: String, limits l: Limits = limits(), as expected: (HTTPError) -> Bool) -> Bool {
    do {
        _ = try parse(text, limits: l)
        return false
    } catch {
        return expected(error)
    }
}

private func isMalformed(_ e: HTTPError) -> Bool { if case .malformedRequest = e { true } else { false } }

@Suite struct RequestParserTests {
    @Test func simpleGet() throws {
        let text = "GET /db/doc%2F1?rev=1-a HTTP/1.1\r\nHost: x\r\nAccept: a\r\nAccept: b\r\n\r\n"
        let parsed = try #require(try parse(text))
        #expect(parsed.head.method == "GET")
        #expect(parsed.head.target == "/db/doc%2F1?rev=1-a")
        #expect(parsed.head.version == .http11)
        #expect(parsed.head.headers.values(for: "accept") == ["a", "b"])
        #expect(parsed.head.framing == .none)
        #expect(parsed.head.isKeepAlive)
        #expect(parsed.end == text.utf8.count)
    }

    @Test func incompleteHeadNeedsMoreBytes() throws {
        let full = Array("POST /x HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc".utf8)
        let parser = RequestParser(limits: limits())
        for cut in 0..<(full.count - 3) {
            #expect(try parser.parse(Array(full[..<cut])) == nil, "cut at \(cut)")
        }
        let parsed = try #require(try parser.parse(full))
        #expect(parsed.head.framing == .length(3))
        #expect(parsed.end == full.count - 3)
    }

    @Test func pipelinedHeadsParseFromOffset() throws {
        let bytes = Array("GET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\n\r\n".utf8)
        let parser = RequestParser(limits: limits())
        let first = try #require(try parser.parse(bytes))
        let second = try #require(try parser.parse(bytes, from: first.end))
        #expect(first.head.target == "/a")
        #expect(second.head.target == "/b")
        #expect(second.end == bytes.count)
    }

    @Test func bareLFAcceptedAndLeadingEmptyLineSkipped() throws {
        let parsed = try #require(try parse("\r\nGET / HTTP/1.1\nHost: x\n\n"))
        #expect(parsed.head.headers["host"] == "x")
    }

    @Test func missingHostIsFine() throws {
        #expect(try parse("GET / HTTP/1.1\r\n\r\n") != nil)
    }

    @Test func keepAliveRules() throws {
        #expect(try parse("GET / HTTP/1.0\r\n\r\n")?.head.isKeepAlive == false)
        #expect(try parse("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n")?.head.isKeepAlive == true)
        #expect(try parse("GET / HTTP/1.1\r\nConnection: foo, close\r\n\r\n")?.head.isKeepAlive == false)
        #expect(try parse("GET / HTTP/1.1\r\n\r\n")?.head.isKeepAlive == true)
    }

    @Test func expectContinueOnlyForHTTP11() throws {
        #expect(try parse("PUT / HTTP/1.1\r\nExpect: 100-Continue\r\nContent-Length: 1\r\n\r\n")?.head.expectsContinue == true)
        #expect(try parse("PUT / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\n")?.head.expectsContinue == false)
    }

    @Test func contentLengthRules() throws {
        #expect(try parse("PUT / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n")?.head.framing == .length(5))
        #expect(try parse("PUT / HTTP/1.1\r\nContent-Length: 5, 5\r\n\r\n")?.head.framing == .length(5))
        for bad in ["5\r\nContent-Length: 6", "5, 6", "-1", "+5", "0x10", "", "1 2", "99999999999999999999999"] {
            #expect(rejects("PUT / HTTP/1.1\r\nContent-Length: \(bad)\r\n\r\n", as: isMalformed), "\(bad)")
        }
    }

    @Test func bodyOverLimitIs413() {
        #expect(rejects("PUT / HTTP/1.1\r\nContent-Length: 1001\r\n\r\n", limits: limits(bodyBytes: 1000)) {
            $0 == .bodyTooLarge(limit: 1000)
        })
    }

    @Test func transferEncodingRules() throws {
        #expect(try parse("POST / HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n")?.head.framing == .chunked)
        let bad = [
            "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n",  // RFC 9112 §6.1
            "POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
            "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n",
            "POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n",
            "POST / HTTP/1.1\r\nTransfer-Encoding: chunked, chunked\r\n\r\n",
            "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
        ]
        for text in bad { #expect(rejects(text, as: isMalformed), "\(text)") }
        // RFC 9112 §6.1: a coding we do not implement, before the final chunked, is 501 material.
        #expect(rejects("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n") {
            $0 == .unsupportedTransferCoding("gzip")
        })
    }

    /// RFC 9110 §15.6.6: a well-formed version with another major number is 505 material;
    /// a malformed one stays 400.
    @Test func otherMajorVersionsAreNotSupported() {
        #expect(rejects("GET / HTTP/2.0\r\n\r\n") { $0 == .versionNotSupported("HTTP/2.0") })
        #expect(rejects("GET / HTTP/0.9\r\n\r\n") { $0 == .versionNotSupported("HTTP/0.9") })
        #expect(rejects("GET / HTTP/1.x\r\n\r\n", as: isMalformed))
    }

    @Test func malformedHeads() {
        let bad = [
            "GET  / HTTP/1.1\r\n\r\n", "GET / HTTP/1.1 \r\n\r\n", "GET /\r\n\r\n", "GET / HTTP/2\r\n\r\n",
            "GET / http/1.1\r\n\r\n", "G(T / HTTP/1.1\r\n\r\n", "GET /a\u{7F} HTTP/1.1\r\n\r\n",
            "GET / HTTP/1.1\r\nHost : x\r\n\r\n", "GET / HTTP/1.1\r\nNoColon\r\n\r\n",
            "GET / HTTP/1.1\r\n: empty\r\n\r\n", "GET / HTTP/1.1\r\nA: b\r\n folded\r\n\r\n",
            "GET / HTTP/1.1\r\nA: b\rc\r\n\r\n", "GET / HTTP/1.1\r\nA: b\u{0}c\r\n\r\n", "GET / HTTP/1.12\r\n\r\n",
        ]
        for text in bad { #expect(rejects(text, as: isMalformed), "\(text.debugDescription)") }
    }

    @Test func headersOverLimitAre431() {
        let big = "GET / HTTP/1.1\r\nX: \(String(repeating: "a", count: 300))\r\n\r\n"
        #expect(rejects(big, limits: limits(headerBytes: 256)) { $0 == .headersTooLarge(limit: 256) })
        // No end in sight is also 431, without waiting for the empty line.
        let endless = "GET / HTTP/1.1\r\nX: \(String(repeating: "a", count: 300))"
        #expect(rejects(endless, limits: limits(headerBytes: 256)) { $0 == .headersTooLarge(limit: 256) })
        let many = "GET / HTTP/1.1\r\n" + String(repeating: "A: b\r\n", count: 5) + "\r\n"
        #expect(rejects(many, limits: limits(count: 4)) { if case .headersTooLarge = $0 { true } else { false } })
    }

    @Test func arbitraryBytesNeverCrash() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("GET / HTTP/1.1\r\n:;, 0aZ\t\u{7F}".utf8) + [0, 0x80, 0xFF]
        for _ in 0..<2000 {
            let n = Int.random(in: 0..<80, using: &generator)
            let bytes = (0..<n).map { _ in alphabet.randomElement(using: &generator) ?? 0 }
            _ = try? RequestParser(limits: limits(headerBytes: 64)).parse(bytes)
        }
    }
}
