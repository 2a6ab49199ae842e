import SetteeHTTP
import SetteeJSON
@testable import SetteeServer
import Testing

/// The trie's matching rules, on a table whose rows are told apart by their
/// methods; then the routes that carry CouchDB's path-level decisions.
@Suite struct RouterTests {
    private static let answer: Handler = { _ in HTTPResponse(status: 200) }
    private let router = Router([
        ("/{db}", [.GET: answer]),
        ("/{db}/_all_docs", [.POST: answer]),
        ("/{db}/{docid}", [.PUT: answer]),
        ("/{db}/{docid}/{attachment...}", [.DELETE: answer]),
        ("/{db}/_design/{ddoc}", [.COPY: answer]),
        ("/{db}/_design/{ddoc}/_view/{view}", [.HEAD: answer]),
    ])

    private func methods(_ path: String) -> [String]? {
        router.match(path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init))?
            .answeredMethods
    }

    private func parameters(_ segments: [String]) throws -> PathParameters {
        try #require(router.match(segments)).parameters
    }

    /// A 405 names CouchDB's own list where its handler writes one (`AllowLists`), and
    /// every pattern of that table is a route: a misspelt one would silently fall back.
    @Test func methodNotAllowedListsAreCouchDBsWhereItWritesThem() throws {
        #expect(try #require(Routes.router.match(["d", "_security"])).allowedMethods == ["PUT", "GET"])
        #expect(try #require(Routes.router.match(["_uuids"])).allowedMethods == ["GET"])
        #expect(try #require(Routes.router.match(["d", "_bulk_docs"])).allowedMethods == ["POST"])
        let patterns = Set(Routes.table.map(\.0))
        for pattern in AllowLists.byPattern.keys {
            #expect(patterns.contains(pattern), "\(pattern) is not in the route table")
        }
    }

    @Test func literalsWinOverParameters() throws {
        #expect(methods("/d") == ["GET", "HEAD"])
        #expect(methods("/d/_all_docs") == ["POST"])
        #expect(methods("/d/doc") == ["PUT"])
        #expect(try parameters(["d", "doc"]).docID == "doc")
    }

    @Test func aDeadEndLiteralBacktracksToTheParameter() throws {
        // `_all_docs/x` has no literal route below it: it is a document's attachment.
        #expect(methods("/d/_all_docs/x") == ["DELETE"])
        let bound = try parameters(["d", "_all_docs", "x"])
        #expect(bound.docID == "_all_docs" && bound.attachment == "x")
        // `_design` alone is a document id; `_design/x/_view/v/w` backtracks two levels.
        #expect(methods("/d/_design") == ["PUT"])
        let deep = try parameters(["d", "_design", "x", "_view", "v", "w"])
        #expect(deep.docID == "_design" && deep.attachment == "x/_view/v/w")
    }

    @Test func namedParametersAndTheRestOfThePath() throws {
        #expect(methods("/d/_design/x") == ["COPY"])
        #expect(try parameters(["d", "_design", "x"]).docID == "_design/x")
        #expect(try parameters(["d", "_design", "x"])[.ddoc] == "x")
        let view = try parameters(["d", "_design", "x", "_view", "v"])
        #expect(view[.view] == "v" && view.db == "d" && view[.docid] == nil)
        #expect(try parameters(["d", "a", "b", "c"]).attachment == "b/c")
    }

    @Test func anEncodedSlashInTheIdIsRoutedAsTwoSegments() throws {
        #expect(try #require(router.match(["d", "_design/x"])).answeredMethods == ["COPY"])
        #expect(try parameters(["d", "_design/x/y"]).docID == "_design/x/y")
        #expect(try #require(router.match(["d", "other/x"])).answeredMethods == ["PUT"])
        #expect(try #require(router.match(["d", "_local/x"])).answeredMethods == ["DELETE"])
        #expect(try #require(router.match(["d", "_designs/x"])).answeredMethods == ["PUT"])
    }

    @Test func methodDispatch() throws {
        let match = try #require(router.match(["d"]))
        #expect(match.handler(for: "GET") != nil)
        #expect(match.handler(for: "HEAD") != nil)  // GET without its body
        #expect(match.handler(for: "PUT") == nil)
        #expect(match.handler(for: "BREW") == nil)
        #expect(try #require(router.match(["d", "doc"])).handler(for: "HEAD") == nil)
    }

    // MARK: CouchDB's path-level decisions, through the real table

    @Test func localPathsAsCouchDBAnswersThem() async throws {
        let harness = try RouterHarness()
        #expect(await harness.send("PUT", "/db").status == 201)
        for method in ["GET", "PUT", "DELETE", "POST"] {
            let bare = await harness.send(method, "/db/_local", json: [:])
            #expect(bare.status == 400 && bare.json["reason"] == "Invalid _local document id.")
            let attachment = await harness.send(method, "/db/_local/x/a.txt", body: Array("abc".utf8),
                                                headers: ["Content-Type": "text/plain"])
            #expect(attachment.status == 400 && attachment.json["reason"] == "_local documents do not accept attachments.")
        }
        #expect(await harness.send("PUT", "/db/_local%2Fenc", json: ["k": 1]).status == 201)
        #expect(await harness.send("GET", "/db/_local/enc").json["k"] == 1)
    }

    @Test func copyOfALocalDocumentMakesADocument() async throws {
        let harness = try RouterHarness()
        #expect(await harness.send("PUT", "/db").status == 201)
        #expect(await harness.send("PUT", "/db/_local/src", json: ["k": "v"]).status == 201)
        let copy = await harness.send("COPY", "/db/_local/src", headers: ["Destination": "dst"])
        #expect(copy.status == 201 && copy.json["id"] == "dst")
        let copied = await harness.send("GET", "/db/dst")
        #expect(copied.json["k"] == "v" && copied.json["_rev"]?.stringValue?.hasPrefix("1-") == true)
        #expect(await harness.send("COPY", "/db/_local/none", headers: ["Destination": "d2"]).status == 404)
    }

    /// Views, shows, lists, updates and rewrites are routed to their handlers; a handler's
    /// name alone is CouchDB's path error.
    @Test func viewRoutesAndPathErrors() async throws {
        let harness = try RouterHarness()
        #expect(await harness.send("PUT", "/db").status == 201)
        #expect(await harness.send("GET", "/db/_design/x/_view/v").json["reason"] == "missing")
        #expect(await harness.send("POST", "/db/_design/x/_view/v", json: [:]).status == 404)
        #expect(await harness.send("GET", "/nodb/_design/x/_view/v").json["reason"] == "Database does not exist.")
        #expect(await harness.send("GET", "/db/_design/x/_show/s").json["reason"] == "missing")
        #expect(await harness.send("POST", "/db/_design/x/_update/u").json["reason"] == "missing")
        #expect(await harness.send("GET", "/db/_design/x/_list/l/v").json["reason"] == "missing")
        #expect(await harness.send("GET", "/db/_design/x/_list/l").json["error"] == "list_error")
        #expect(await harness.send("GET", "/db/_design/x/_rewrite/r").json["reason"] == "missing")
        #expect(await harness.send("GET", "/db/_design/x/_show").json["error"] == "show_error")
        #expect(await harness.send("PUT", "/db/_design/x/_update").json["error"] == "update_error")
        #expect(await harness.send("GET", "/db/_design/x/_list").json["error"] == "list_error")
        #expect(await harness.send("GET", "/db/_design/x/_view").status == 405)
    }

    /// `/{db}/_temp_view` is 410 gone for every method (chttpd_view:handle_temp_view_req/2), not a
    /// document named `_temp_view` (view_errors_test.exs; CouchDB 3.4.3 answers so).
    @Test func temporaryViewsAreGone() async throws {
        let harness = try RouterHarness()
        #expect(await harness.send("PUT", "/db").status == 201)
        for method in ["POST", "GET", "PUT"] {
            let answer = await harness.send(method, "/db/_temp_view", json: ["map": "function(doc){emit(null)}"])
            #expect(answer.status == 410 && answer.json == ["error": "gone", "reason": "Temporary views are not supported in CouchDB"])
        }
        #expect(await harness.send("POST", "/nodb/_temp_view", json: [:]).status == 404)
    }
}
