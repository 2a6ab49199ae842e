import Testing
@testable import SetteeHTTP

@Suite struct HTTPRequestTests {
    /// CouchDB keeps `%2F` inside a document id: segments are split before decoding.
    @Test func pathSegmentsAreSplitThenDecoded() {
        let request = HTTPRequest(method: "GET", target: "/db/a%2Fb//caf%C3%A9?rev=1-x")
        #expect(request.rawPath == "/db/a%2Fb//caf%C3%A9")
        #expect(request.pathSegments == ["db", "a/b", "café"])
    }

    @Test func undecodableSegmentsAreNil() {
        #expect(HTTPRequest(method: "GET", target: "/db/%zz").pathSegments == nil)
        #expect(HTTPRequest(method: "GET", target: "/db/%C3").pathSegments == nil)
    }

    /// `+` is a space in a query (HTML forms, CouchDB), a plain `+` in a path.
    @Test func queryItemsKeepOrderAndDecode() throws {
        let request = HTTPRequest(method: "GET", target: "/db/a+b?key=%22x+y%22&flag&empty=&eq=a=b&&k=%2B")
        #expect(request.pathSegments == ["db", "a+b"])
        let items = try #require(request.queryItems)
        #expect(items.map(\.name) == ["key", "flag", "empty", "eq", "k"])
        #expect(items.map(\.value) == ["\"x y\"", "", "", "a=b", "+"])
    }

    /// `;` separates pairs as `&` does (HTML 4.01 B.2.2; mochiweb_util:parse_qs/1).
    @Test func semicolonsSeparatePairs() throws {
        let items = try #require(HTTPRequest(method: "GET", target: "/db/_index?limit=2;skip=1&x=%3B;").queryItems)
        #expect(items.map(\.name) == ["limit", "skip", "x"])
        #expect(items.map(\.value) == ["2", "1", ";"])
    }

    @Test func noQueryIsEmptyAndABadOneIsNil() {
        #expect(HTTPRequest(method: "GET", target: "/db").rawQuery == nil)
        #expect(HTTPRequest(method: "GET", target: "/db").queryItems?.isEmpty == true)
        #expect(HTTPRequest(method: "GET", target: "/db?x=%G0").queryItems == nil)
    }
}
