import Testing
@testable import SetteeHTTP

@Suite struct HTTPDateTests {
    /// RFC 9110 §5.6.7's own example.
    @Test func formatsIMFFixdate() {
        #expect(HTTPDate.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
    }

    @Test func nowIsAnIMFFixdate() {
        let text = HTTPDate.now()
        #expect(text.utf8.count == 29)
        #expect(text.hasSuffix(" GMT"))
    }
}
