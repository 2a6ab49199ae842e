import Dispatch
import Foundation
import Glibc
import SetteeJSON
import SetteeTestSupport
import Synchronization
import Testing

/// A new view's first `_count` and a new Mango index's first `_find` while other clients
/// keep updating documents with `_bulk_docs` (storage-correctness issue #47, item 2: they
/// answered 19,937 and 19,975 of 20,000). Every document exists throughout and keeps its
/// key, so each answer must count every one of them.
@Suite(.serialized) struct IndexBuildUnderWritesTests {
    static let documents = 10_000

    /// Updates its own slice of the documents, 50 per `_bulk_docs`, until told to stop.
    final class Writer: Sendable {
        let stopped = Atomic<Bool>(false)
        let writes = Atomic<Int>(0)
        let failures = Mutex<[String]>([])
        let done = DispatchGroup()

        func start(_ settee: SetteeProcess, ids: Range<Int>, revs: [String: String]) {
            done.enter()
            Thread.detachNewThread { [self] in
                defer { done.leave() }
                var revs = revs, round = 0
                while !stopped.load(ordering: .relaxed) {
                    round += 1
                    let chosen = (0..<50).map { ids.lowerBound + ($0 * 37 + round * 50) % ids.count }
                    let docs = Set(chosen).map { i -> String in
                        let id = String(format: "d%05d", i)
                        return #"{"_id":"\#(id)","_rev":"\#(revs[id] ?? "")","n":\#(i),"round":\#(round)}"#
                    }
                    do {
                        let r = try settee.adminRequest("POST", "/db/_bulk_docs", json: #"{"docs":[\#(docs.joined(separator: ","))]}"#)
                        for row in r.json?.arrayValue ?? [] {
                            if let id = row["id"]?.stringValue, let rev = row["rev"]?.stringValue { revs[id] = rev }
                        }
                        writes.add(1, ordering: .relaxed)
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                        return
                    }
                }
            }
        }

        func stop() {
            stopped.store(true, ordering: .relaxed)
            done.wait()
        }
    }

    @Test func firstQueriesOfNewIndexesCountEveryDocument() throws {
        let dir = try TempDirectory(prefix: "index-build")
        let settee = try SetteeProcess.start(dataDirectory: dir.path)
        defer { settee.kill(SIGKILL) }
        #expect(try settee.adminRequest("PUT", "/db").status == 201)
        var revs: [String: String] = [:]
        for start in stride(from: 0, to: Self.documents, by: 1_000) {
            let docs = (start..<start + 1_000).map { String(format: #"{"_id":"d%05d","n":%d}"#, $0, $0) }
            let r = try settee.adminRequest("POST", "/db/_bulk_docs", json: #"{"docs":[\#(docs.joined(separator: ","))]}"#)
            for row in r.json?.arrayValue ?? [] { revs[row["id"]?.stringValue ?? ""] = row["rev"]?.stringValue }
        }
        let writer = Writer()
        let half = Self.documents / 2
        writer.start(settee, ids: 0..<half, revs: revs)
        writer.start(settee, ids: half..<Self.documents, revs: revs)
        defer { writer.stop() }
        for round in 0..<2 {
            let ddoc = #"{"views":{"c":{"map":"function(doc) { emit(doc.n, null); }","reduce":"_count"}}}"#
            #expect(try settee.adminRequest("PUT", "/db/_design/v\(round)", json: ddoc).status == 201)
            let counted = try settee.adminRequest("GET", "/db/_design/v\(round)/_view/c")
            #expect(counted.json?["rows"]?.arrayValue?.first?["value"]?.intValue == Self.documents, "\(counted.text.prefix(200))")

            let index = #"{"index":{"fields":["n"]},"ddoc":"m\#(round)","name":"m\#(round)","type":"json"}"#
            #expect(try settee.adminRequest("POST", "/db/_index", json: index).status == 200)
            let query = #"{"selector":{"n":{"$gte":0}},"fields":["_id"],"limit":\#(Self.documents + 1),"use_index":"m\#(round)"}"#
            let found = try settee.adminRequest("POST", "/db/_find", json: query)
            #expect(found.json?["docs"]?.arrayValue?.count == Self.documents, "\(found.text.prefix(200))")
        }
        writer.stop()
        #expect(writer.writes.load(ordering: .relaxed) > 0)
        #expect(writer.failures.withLock { $0 }.isEmpty)
    }
}
