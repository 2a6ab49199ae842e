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
                      "/db/_local/x", "/_users/org.couchdb.user:a", "/db",
                      "/db/", "/db/doc/att", "//doc", "/_session", "/_all_dbs", "*", "http://h/db/doc"])
    func everythingElseIsNot(target: String) {
        #expect(!LightRequest.isLight(method: "GET", target: target))
    }

    @Test(arguments: ["PUT", "POST", "DELETE", "COPY", "OPTIONS"])
    func onlyReadsAreLight(method: String) {
        #expect(!LightRequest.isLight(method: method, target: "/db/doc"))
        #expect(!LightRequest.isLight(method: method, target: "/db/_design/d/_view/v?key=1"))
    }

    /// A view query starts on the loop, whose handler moves what is heavy to the pool (`LightViewQuery`).
    @Test(arguments: ["/db/_design/d/_view/v?key=1", "/db/_design/d/_view/v", "/db/_design/d/_view/v?key=%221%22&limit=2",
                      "/my-db/_design/a%2Fb/_view/by_n?key=3", "/db/_design/d/_view/v?startkey=1&endkey=/"])
    func viewQueriesAreLight(target: String) {
        #expect(LightRequest.isLight(method: "GET", target: target))
        #expect(LightRequest.isLight(method: "HEAD", target: target))
    }

    /// Not a view query of a user database: system databases (their read rules), other
    /// design handlers, `queries` (a POST), empty or extra segments.
    @Test(arguments: ["/_users/_design/d/_view/v?key=1", "/_replicator/_design/d/_view/v", "/db/_design/d/_view/v/queries",
                      "/db/_design/d/_view", "/db/_design/d/_view/", "/db/_design//_view/v", "/db/_design/d/_views/v",
                      "/db/_design/d/_info", "/db/_design/d/_show/v", "/db/_local/d/_view/v", "//_design/d/_view/v",
                      "/db/_design/d/_view/v/x?key=1", "db/_design/d/_view/v", "/db/_design/d/_list/l/v"])
    func otherDesignPathsAreNot(target: String) {
        #expect(!LightRequest.isLight(method: "GET", target: target))
    }
}
