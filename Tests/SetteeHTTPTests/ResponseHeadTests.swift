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

    /// RFC 9110 §8.6: a 304 may declare a Content-Length (CouchDB declares 0); it has no
    /// content either way, and one that declares none gets none from this layer.
    @Test func notModifiedKeepsADeclaredLengthOnly() {
        let declared = ResponseHead(response: HTTPResponse(status: 304, headers: ["Content-Length": "0"]),
                                    requestMethod: "GET", version: .http11, closing: false)
        #expect(String(decoding: declared.wire[..<declared.headCount], as: UTF8.self)
                == "HTTP/1.1 304 Not Modified\r\nContent-Length: 0\r\n\r\n")
        #expect(declared.mode == .none)
        let bare = ResponseHead(response: HTTPResponse(status: 304), requestMethod: "GET", version: .http11, closing: false)
        #expect(String(decoding: bare.wire[..<bare.headCount], as: UTF8.self) == "HTTP/1.1 304 Not Modified\r\n\r\n")
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
