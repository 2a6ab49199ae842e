import Testing
@testable import SetteeHTTP

@Suite struct ResponseHeadTests {
    @Test func statusLineHeadersAndFraming() {
        let head = ResponseHead(response: HTTPResponse(status: 201, headers: ["ETag": "\"1-a\""], body: .bytes(Array("{}".utf8))),
                                requestMethod: "PUT", version: .http11, closing: false)
        #expect(String(decoding: head.wire[..<head.headCount], as: UTF8.self)
                == "HTTP/1.1 201 Created\r\nETag: \"1-a\"\r\nContent-Length: 2\r\n\r\n")
        #expect(head.mode == .fixed(Array("{}".utf8)))
        #expect(head.wire[head.headCount...].elementsEqual("{}".utf8))
    }

    /// RFC 9110 §5.5: a CR or LF inside a field value must not start a new header line.
    @Test func lineBreaksInValuesCannotSplitTheResponse() {
        let (bytes, _) = ResponseHead.serialize(status: 200, headers: ["Location": "/a\r\nSet-Cookie: x=1\n"])
        #expect(String(decoding: bytes, as: UTF8.self) == "HTTP/1.1 200 OK\r\nLocation: /a  Set-Cookie: x=1 \r\n\r\n")
    }

    @Test func nonASCIIValuesPassThroughUnchanged() {
        let (bytes, _) = ResponseHead.serialize(status: 404, headers: ["X-Name": "café"])
        #expect(String(decoding: bytes, as: UTF8.self) == "HTTP/1.1 404 Object Not Found\r\nX-Name: café\r\n\r\n")
    }
}
