import SetteeHTTP
import SetteeJSON
@testable import SetteeServer
import Testing

/// Which paths `GET /{db}/_design%2F{name}` redirects (CouchDB's chttpd_db `db_req`
/// splits the raw path on `_design%2F`, caseless), checked as bytes.
@Suite struct DesignDocRedirectTests {
    @Test func theSecondSegmentStartingWithTheEscapedSlashIsTheMarker() {
        #expect(DesignDocRedirect.secondSegmentHasMarker("/db/_design%2Fddoc"))
        #expect(DesignDocRedirect.secondSegmentHasMarker("/db/_DESIGN%2fddoc"))
        #expect(DesignDocRedirect.secondSegmentHasMarker("/db/_Design%2F"))
        #expect(DesignDocRedirect.secondSegmentHasMarker("/db/_design%2Fddoc/att"))
        // Empty segments do not count, as `split(separator:)` omitted them.
        #expect(DesignDocRedirect.secondSegmentHasMarker("//db//_design%2Fx"))
    }

    @Test func anythingElseIsNot() {
        #expect(!DesignDocRedirect.secondSegmentHasMarker("/db/doc1"))
        #expect(!DesignDocRedirect.secondSegmentHasMarker("/db/_design/ddoc"))
        #expect(!DesignDocRedirect.secondSegmentHasMarker("/db/_design%2"))
        #expect(!DesignDocRedirect.secondSegmentHasMarker("/db"))
        #expect(!DesignDocRedirect.secondSegmentHasMarker("/_design%2Fx"))
        #expect(!DesignDocRedirect.secondSegmentHasMarker("/db/x/_design%2Fx"))
        // Only letters fold: `_` is not DEL, `%` is not `\u{05}`.
        #expect(!DesignDocRedirect.secondSegmentHasMarker("/db/\u{7f}design%2Fx"))
        #expect(!DesignDocRedirect.secondSegmentHasMarker("/db/_design\u{05}2Fx"))
    }

    @Test func theLocationUnescapesTheFirstMarkerAndDropsLaterOnes() {
        #expect(DesignDocRedirect.unescaped("/db/_design%2Fa?x=1") == "/db/_design/a?x=1")
        #expect(DesignDocRedirect.unescaped("/db/_design%2fa_design%2Fb") == "/db/_design/ab")
    }

    /// Everything under `_design%2F{name}` is 301 for GET, views and `_info` too, as
    /// CouchDB 3.4.3 answers (design_paths_test.exs); they were served.
    @Test func pathsUnderTheEscapedDesignDocumentAreRedirected() async throws {
        let h = try RouterHarness()
        #expect(await h.send("PUT", "/db").status == 201)
        #expect(await h.send("PUT", "/db/_design/t", json: ["views": [:]]).status == 201)
        for path in ["/db/_design%2Ft/_view/v?limit=1", "/db/_design%2Ft/_info", "/db/_design%2Ft", "/db/_design%2Ft/a.txt"] {
            let answer = await h.send("GET", path)
            #expect(answer.status == 301, "\(path)")
            #expect(answer.headers["Location"]?.hasSuffix(path.replacing("%2F", with: "/")) == true, "\(path)")
        }
    }
}

