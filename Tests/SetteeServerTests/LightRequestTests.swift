@testable import SetteeServer
import Testing

/// Which requests the router lets the HTTP server answer on its event-loop thread.
@Suite struct LightRequestTests {
    @Test(arguments: ["/db/doc", "/db/a%2Fb", "/my-db/doc_1", "/_up", "/"])
    func documentReadsAreLight(target: String) {
        #expect(LightRequest.isLight(method: "GET", target: target))
        #expect(LightRequest.isLight(method: "HEAD", target: target))
    }

    @Test(arguments: ["/db/doc?rev=1-a", "/db/doc?attachments=true", "/db/_all_docs", "/db/_design/d",
                      "/db/_local/x", "/_users/org.couchdb.user:a", "/db/_design/d/_view/v", "/db",
                      "/db/", "/db/doc/att", "//doc", "/_session", "/_all_dbs", "*", "http://h/db/doc"])
    func everythingElseIsNot(target: String) {
        #expect(!LightRequest.isLight(method: "GET", target: target))
    }

    @Test(arguments: ["PUT", "POST", "DELETE", "COPY", "OPTIONS"])
    func onlyReadsAreLight(method: String) {
        #expect(!LightRequest.isLight(method: method, target: "/db/doc"))
    }
}
