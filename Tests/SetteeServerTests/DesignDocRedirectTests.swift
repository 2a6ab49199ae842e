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
}
