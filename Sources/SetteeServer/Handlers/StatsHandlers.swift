import Glibc
import SetteeHTTP
import SetteeJSON
import SetteeReplicator
import SetteeStore

/// `/_node/{node}/_stats[/section[/key]]`, `_system` and `_prometheus` (server admins and the `_metrics` role),
/// with CouchDB's metric names and shapes for what Settee does (`couch_stats`).
enum StatsHandlers {
    static func stats(_ context: RequestContext) async throws -> HTTPResponse {
        try NodeHandlers.checkedMetricsNode(context)
        var value = tree(context)
        for part in (context.parameters[.path] ?? "").split(separator: "/").map(String.init) {
            // CouchDB's extract_path: a missing part is an empty answer, not an error.
            value = value[part] ?? .null
        }
        return JSONResponse.ok(value)
    }

    static func system(_ context: RequestContext) async throws -> HTTPResponse {
        try NodeHandlers.checkedMetricsNode(context)
        let stats = context.node.stats
        return JSONResponse.ok([
            "uptime": .int(stats.uptimeSeconds),
            "memory": ["rss": .int(processStatus("VmRSS") * 1024), "virtual": .int(processStatus("VmSize") * 1024)],
            "threads": .int(processStatus("Threads")),
            "open_databases": .int(context.node.directory.openCount),
            // Settee's own, beside CouchDB's fields: each count next to its cap, so a deployment
            // of many databases, feeds or clients can watch how close it runs (issue 45).
            "open_os_files": .int(openDescriptors()),
            "os_file_limit": .int(descriptorLimit()),
            "max_dbs_open": .int(context.node.directory.maxOpenDatabases),
            "open_connections": .int(context.node.connections.value),
            "max_connections": .int(context.node.configuration.http.maxConnections),
            "clients_requesting_changes": .int(context.node.changesHub.feeds),
        ])
    }

    static func prometheus(_ context: RequestContext) async throws -> HTTPResponse {
        try NodeHandlers.checkedMetricsNode(context)
        return prometheus(context.node)
    }

    /// The Prometheus text exposition (format 0.0.4) of `node`'s figures.
    static func prometheus(_ node: NodeState) -> HTTPResponse {
        let c = node.stats.snapshot
        var text = ""
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [(String, Double)]) {
            text += "# HELP couchdb_\(name) \(help)\n# TYPE couchdb_\(name) \(type)\n"
            for (labels, value) in samples { text += "couchdb_\(name)\(labels) \(number(value))\n" }
        }
        metric("httpd_requests_total", "counter", "number of HTTP requests", [("", Double(c.requests))])
        metric("httpd_request_methods", "counter", "number of HTTP requests by method",
               zip(NodeStats.methods, c.methods).map { ("{method=\"\($0)\"}", Double($1)) })
        metric("httpd_status_codes", "counter", "number of HTTP responses by status code",
               zip(NodeStats.statuses, c.statuses).map { ("{code=\"\($0)\"}", Double($1)) })
        metric("database_reads_total", "counter", "number of times a document was read from a database",
               [("", Double(c.documentReads))])
        metric("database_writes_total", "counter", "number of times a database was changed", [("", Double(c.databaseWrites))])
        metric("document_writes_total", "counter", "number of document write operations", [("", Double(c.documentWrites))])
        metric("document_inserts_total", "counter", "number of documents inserted", [("", Double(c.documentInserts))])
        metric("open_databases", "gauge", "number of open databases", [("", Double(node.directory.openCount))])
        metric("open_os_files", "gauge", "number of file descriptors Settee has open", [("", Double(openDescriptors()))])
        let times = c.times.sorted()
        metric("request_time_seconds", "summary", "length of a request inside Settee",
               [0.5, 0.75, 0.9, 0.95, 0.99, 0.999].map { ("{quantile=\"\(number($0))\"}", percentile(times, $0) / 1000) }
                   + [("_sum", times.reduce(0, +) / 1000), ("_count", Double(times.count))])
        let jobs = jobCounts(node)
        for (state, count) in jobs {
            metric("couch_replicator_jobs_\(state)", "gauge", "replicator scheduler \(state) jobs", [("", Double(count))])
        }
        metric("uptime_seconds", "counter", "settee uptime", [("", Double(node.stats.uptimeSeconds))])
        metric("memory_bytes", "gauge", "resident memory of the settee process",
               [("", Double(processStatus("VmRSS") * 1024))])
        return HTTPResponse(status: 200, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"],
                            body: .bytes(Array(text.utf8)))
    }

    /// CouchDB's nested `_stats` object for what Settee counts.
    static func tree(_ context: RequestContext) -> JSONValue {
        let c = context.node.stats.snapshot
        func counter(_ value: Int, _ desc: String) -> JSONValue {
            ["value": .int(value), "type": "counter", "desc": .string(desc)]
        }
        func gauge(_ value: Int, _ desc: String) -> JSONValue { ["value": .int(value), "type": "gauge", "desc": .string(desc)] }
        let methods = JSONObject(members: zip(NodeStats.methods, c.methods).map {
            .init(key: $0, value: counter($1, "number of HTTP \($0) requests"))
        })
        let statuses = JSONObject(members: zip(NodeStats.statuses, c.statuses).map {
            .init(key: String($0), value: counter($1, "number of HTTP \($0) responses"))
        })
        let times = c.times.sorted()
        let mean = times.isEmpty ? 0 : times.reduce(0, +) / Double(times.count)
        let requestTime: JSONValue = [
            "value": ["n": .int(times.count), "min": .number(JSONNumber(times.first ?? 0)), "max": .number(JSONNumber(times.last ?? 0)),
                      "arithmetic_mean": .number(JSONNumber(mean)), "median": .number(JSONNumber(percentile(times, 0.5))),
                      "percentile": .array([50, 75, 90, 95, 99, 999].map { p in
                          [.int(p), .number(JSONNumber(percentile(times, p == 999 ? 0.999 : Double(p) / 100)))]
                      })],
            "type": "histogram", "desc": "length of a request inside Settee, in milliseconds (the last 1,024)",
        ]
        let jobs = jobCounts(context.node)
        return [
            "couchdb": [
                "httpd": ["requests": counter(c.requests, "number of HTTP requests"),
                          // A counter in CouchDB's stats_descriptions.cfg, raised and lowered as feeds come and go.
                          "clients_requesting_changes": counter(context.node.changesHub.feeds,
                                                                "number of clients for continuous _changes")],
                "httpd_request_methods": .object(methods),
                "httpd_status_codes": .object(statuses),
                "request_time": requestTime,
                "database_reads": counter(c.documentReads, "number of times a document was read from a database"),
                "database_writes": counter(c.databaseWrites, "number of times a database was changed"),
                "document_writes": counter(c.documentWrites, "number of document write operations"),
                "document_inserts": counter(c.documentInserts, "number of documents inserted"),
                "open_databases": gauge(context.node.directory.openCount, "number of open databases"),
                // CouchDB's stats_descriptions.cfg calls this one a counter.
                "open_os_files": ["value": .int(openDescriptors()), "type": "counter",
                                  "desc": "number of file descriptors CouchDB has open"],
            ],
            "couch_replicator": [
                "jobs": .object(JSONObject(members: jobs.map {
                    .init(key: $0.0, value: gauge($0.1, "replicator scheduler \($0.0) jobs"))
                })),
            ],
        ]
    }

    /// Replication jobs by state, as CouchDB's scheduler gauges them.
    static func jobCounts(_ node: NodeState) -> [(String, Int)] {
        let jobs = node.replications.jobs.map(\.status.state)
        return [("running", jobs.filter { $0 == .running }.count),
                ("pending", jobs.filter { $0 == .pending || $0 == .initializing }.count),
                ("crashed", jobs.filter { $0 == .crashing }.count),
                ("total", jobs.count)]
    }

    /// The `p` quantile of sorted `values` (0 when there are none).
    static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        return values[min(values.count - 1, Int((Double(values.count) * p).rounded(.down)))]
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    /// How many file descriptors the process has open (entries of `/proc/self/fd`, less
    /// the one reading it); 0 if unreadable.
    static func openDescriptors() -> Int {
        guard let directory = opendir("/proc/self/fd") else { return 0 }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            if entry.pointee.d_name.0 != 0x2E { count += 1 }  // not "." nor ".."
        }
        return max(0, count - 1)
    }

    /// The soft RLIMIT_NOFILE in force (raised at start-up by `DescriptorBudget`); 0 if unreadable.
    static func descriptorLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        return Int(clamping: limit.rlim_cur)
    }

    /// A `/proc/self/status` field (kB for memory, a count for `Threads`); 0 if unreadable.
    static func processStatus(_ field: String) -> Int {
        guard let file = fopen("/proc/self/status", "r") else { return 0 }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix(field + ":") {
                // "VmRSS:\t  1234 kB": a tab, then spaces.
                return Int(text.dropFirst(field.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).first ?? "") ?? 0
            }
        }
        return 0
    }
}
