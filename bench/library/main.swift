/*
 bench/library: the library's own work in-process against the same work over HTTP to
 the same node (its in-process listener, the server code `settee serve` runs), one
 request at a time from one client, so the two columns differ only by the HTTP path
 (issue 43, item 5). Prints FIGURE lines as bench/run's benchmarks do.

   swift build -c release -j 2 --product settee-library-bench
   .build/release/settee-library-bench [count]
*/
import Foundation
import Glibc
import Settee

struct Doc: Codable, Sendable {
    var n: Int
    var text: String
}

func elapsed(_ start: ContinuousClock.Instant) -> Double {
    let d = ContinuousClock.now - start
    return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
}

func figure(_ name: String, _ count: Int, _ seconds: Double, unit: String = "ops/s") {
    print("FIGURE \(name): \(Int(Double(count) / seconds)) \(unit) (\(count) in \(String(format: "%.3f", seconds)) s)")
}

func body(_ n: Int) -> [UInt8] { Array(#"{"n":\#(n),"text":"document number \#(n)"}"#.utf8) }

let count = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 2_000 : 2_000
let path = "/tmp/settee-library-bench-\(getpid())"
defer { _ = system("rm -rf \(path)") }
var options = DataDirectory.Options()
options.admins = ["admin": "pw"]
let data = try DataDirectory(path: path, options: options)
let local = try await data.database("local")
let remote = try await data.database("remote")
let listener = try await data.startListener()
let http = try HTTPClient(port: listener.port, user: "admin", password: "pw")

// Save, one document per call.
var start = ContinuousClock.now
for n in 0..<count { _ = try await local.save(Doc(n: n, text: "document number \(n)"), id: "d\(n)") }
figure("library save, one per call", count, elapsed(start))
start = ContinuousClock.now
for n in 0..<count {
    let status = try http.request("PUT", "/remote/d\(n)", body: body(n)).status
    guard status == 201 else { throw BenchError("PUT answered \(status)") }
}
figure("HTTP PUT, one per request", count, elapsed(start))

// Save in batches of 1,000.
let batches = 20
start = ContinuousClock.now
for b in 0..<batches {
    let changes = (0..<1_000).map { DocumentChange(id: "b\(b)-\($0)", value: Doc(n: $0, text: "document number \($0)")) }
    _ = try await local.saveAll(changes)
}
figure("library saveAll, batches of 1000", batches * 1_000, elapsed(start), unit: "docs/s")
start = ContinuousClock.now
for b in 0..<batches {
    let docs = (0..<1_000).map { #"{"_id":"b\#(b)-\#($0)","n":\#($0),"text":"document number \#($0)"}"# }
    let status = try http.request("POST", "/remote/_bulk_docs", body: Array(("{\"docs\":[" + docs.joined(separator: ",") + "]}").utf8)).status
    guard status == 201 else { throw BenchError("_bulk_docs answered \(status)") }
}
figure("HTTP _bulk_docs, batches of 1000", batches * 1_000, elapsed(start), unit: "docs/s")

// Read by id.
let reads = count * 5
start = ContinuousClock.now
for i in 0..<reads { _ = try await local.document(Doc.self, id: "d\(i % count)") }
figure("library document(id:), decoded", reads, elapsed(start))
start = ContinuousClock.now
for i in 0..<reads { _ = try http.request("GET", "/remote/d\(i % count)") }
figure("HTTP GET /db/doc", reads, elapsed(start))

// Mango query on an index: 10 documents per query.
try await local.createIndex([.ascending("n")], name: "by-n")
_ = try http.request("POST", "/remote/_index", body: Array(#"{"index":{"fields":["n"]},"name":"by-n"}"#.utf8))
let queries = count / 2
start = ContinuousClock.now
for i in 0..<queries {
    let low = i % 900
    _ = try await local.find(Doc.self, Query(Selector.field("n") >= .int(low) && Selector.field("n") < .int(low + 10),
                                             limit: 10))
}
figure("library find, 10 docs per query", queries, elapsed(start))
start = ContinuousClock.now
for i in 0..<queries {
    let low = i % 900
    _ = try http.request("POST", "/remote/_find",
                         body: Array(#"{"selector":{"n":{"$gte":\#(low),"$lt":\#(low + 10)}},"limit":10}"#.utf8))
}
figure("HTTP _find, 10 docs per query", queries, elapsed(start))

// Live query: from a save's return to the new page (in-process), and from an HTTP write's
// answer to a longpoll _changes answer (the HTTP path's equivalent notification).
func liveLatencies(_ local: Database, count: Int) async throws -> [Double] {
    let live = local.liveQuery(Doc.self, Query(Selector.field("n") == -1, limit: 1_000))
    let (pages, continuation) = AsyncStream.makeStream(of: ContinuousClock.Instant.self)
    let watcher = Task {
        for try await _ in live { continuation.yield(.now) }
    }
    defer { watcher.cancel() }
    var arrivals = pages.makeAsyncIterator()
    _ = await arrivals.next()
    var latencies: [Double] = []
    for i in 0..<count {
        _ = try await local.save(Doc(n: -1, text: "live"), id: "live\(i)")
        let saved = ContinuousClock.now
        guard let at = await arrivals.next() else { break }
        let d = at - saved
        latencies.append(max(0, Double(d.components.attoseconds) / 1e15 + Double(d.components.seconds) * 1e3))
    }
    return latencies
}
var latencies = try await liveLatencies(local, count: 200)
latencies.sort()
print("FIGURE live query notification after save returned (ms): median \(String(format: "%.3f", latencies[latencies.count / 2])) p90 \(String(format: "%.3f", latencies[latencies.count * 9 / 10])) max \(String(format: "%.3f", latencies.last ?? 0))")

var load = [Double](repeating: 0, count: 3)
getloadavg(&load, 3)
print("load average (1 min): \(load[0])")
await listener.stop()
await data.close()
