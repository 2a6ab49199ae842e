import Foundation
@testable import SetteeServer
import SetteeHTTP
import SetteeJSON
import Testing

/// JSONP under `[chttpd] allow_jsonp`, as CouchDB 3.4.3's couch_httpd wraps answers
/// (start_jsonp/end_jsonp, validate_callback), and `[chttpd] x_forwarded_host`
/// applied the moment the config API changes them (`LiveSettings`).
@Suite struct JSONPTests {
    @Test func callbackIsIgnoredUntilAllowed() async throws {
        let h = try RouterHarness()
        #expect(await h.send("PUT", "/db").status == 201)
        let plain = await h.send("GET", "/db?callback=cb")
        #expect(plain.headers["Content-Type"] == "application/json" && plain.json["db_name"] == "db")
        #expect(await h.send("PUT", "/_node/_local/_config/chttpd/allow_jsonp", body: Array(#""true""#.utf8)).status == 200)
        let wrapped = await h.send("GET", "/db?callback=cb")
        #expect(wrapped.headers["Content-Type"] == "application/javascript")
        #expect(wrapped.text.hasPrefix("/* CouchDB */cb({\"") && wrapped.text.hasSuffix("});\n"))
        let error = await h.send("GET", "/missing?callback=a.b[0]")
        #expect(error.status == 404)
        #expect(error.text == #"/* CouchDB */a.b[0]({"error":"not_found","reason":"Database does not exist."});"# + "\n")
    }

    @Test func streamedAnswersAreWrappedWholeAndBadNamesRefused() async throws {
        let h = try RouterHarness()
        #expect(await h.send("PUT", "/db").status == 201)
        #expect(await h.send("PUT", "/db/doc", json: ["v": 1]).status == 201)
        #expect(await h.send("PUT", "/_node/_local/_config/chttpd/allow_jsonp", body: Array(#""true""#.utf8)).status == 200)
        let changes = await h.send("GET", "/db/_changes?callback=f")
        let text = changes.text
        #expect(text.hasPrefix("/* CouchDB */f({\"results\":[") && text.hasSuffix("});\n"))
        let inner = text.dropFirst("/* CouchDB */f(".count).dropLast(");\n".count)
        #expect((try? JSONReader.parse(Array(inner.utf8)))?["results"]?.arrayValue?.count == 1)
        let refused = await h.send("GET", "/db?callback=alert(1)")
        #expect(refused.status == 400 && refused.json == ["error": "bad_request", "reason": "invalid_callback"])
    }

    @Test func forwardedHostHeaderChangesLive() async throws {
        let h = try RouterHarness()
        let before = await h.send("PUT", "/a", headers: ["Host": "inner:5984", "X-Orig": "outer.example"])
        #expect(before.headers["Location"] == "http://inner:5984/a")
        #expect(await h.send("PUT", "/_node/_local/_config/chttpd/x_forwarded_host", body: Array(#""X-Orig""#.utf8))
            .status == 200)
        let after = await h.send("PUT", "/b", headers: ["Host": "inner:5984", "X-Orig": "outer.example"])
        #expect(after.headers["Location"] == "http://outer.example/b")
    }
}
