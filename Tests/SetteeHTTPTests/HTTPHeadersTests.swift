import Testing
@testable import SetteeHTTP

@Suite struct HTTPHeadersTests {
    /// RFC 9110 §5.1: field names are case-insensitive; only ASCII letters fold.
    @Test func namesCompareIgnoringASCIICase() {
        let headers: HTTPHeaders = ["Content-Type": "a", "x-{}": "b", "ETag": "c"]
        #expect(headers["content-type"] == "a")
        #expect(headers["CONTENT-TYPE"] == "a")
        #expect(headers["etag"] == "c")
        #expect(headers["x-{}"] == "b")
        // '[' and '{' differ only in bit 0x20 but are not letters.
        #expect(headers["X-[]"] == nil)
        #expect(headers["Content-Typ"] == nil)
        #expect(headers["Content-Types"] == nil)
    }

    /// Non-contiguous (bridged or substring-built) strings take the same rule.
    @Test func lookupWorksForAnyString() {
        let headers: HTTPHeaders = ["Accept": "x"]
        let name = String("xxACCEPT".dropFirst(2))
        #expect(headers[name] == "x")
        #expect(headers.values(for: "accept") == ["x"])
    }
}
