/*
 `settee conflicts URL|DB`: the documents in conflict, one line each — the id, its
 winning revision and the revisions in conflict with it. A URL (`http://admin:pw@host:5984/db`)
 asks a running server's `GET /{db}/_conflicts`; a name reads that database of the local
 data directory. Exits 0 with no output when there are none.
*/
internal import ArgumentParser
internal import FoundationEssentials
internal import SetteeJSON
internal import SetteeReplicator
internal import SetteeServer
internal import SetteeStore

struct Conflicts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the documents in conflict in a database (a URL, or a name in the data directory).")

    @Argument(help: "http(s)://[NAME:PASSWORD@]HOST:PORT/DB, or the name of a database of the data directory.")
    var database: String

    @Option(help: "At most this many documents.")
    var limit = 1_000

    @OptionGroup var location: DataDirectoryOptions

    func run() async throws {
        let rows = database.hasPrefix("http://") || database.hasPrefix("https://")
            ? try await remote() : try await local()
        for row in rows { print(([row.id, row.winner] + row.conflicts).joined(separator: " ")) }
    }

    private struct Row {
        let id: String
        let winner: String
        let conflicts: [String]
    }

    private func remote() async throws -> [Row] {
        guard let components = URLComponents(string: database), !components.path.isEmpty, components.path != "/" else {
            throw ValidationError("the URL must name a database: http://NAME:PASSWORD@HOST:PORT/DB")
        }
        var server = components
        server.path = ""
        let client = try AdminClient(server: server.string, command: "conflicts")
        let response = try await client.request("GET", components.percentEncodedPath + "/_conflicts?limit=\(limit)")
        guard response.status == 200, let json = try? JSONReader.parse(response.body),
              let rows = json["rows"]?.arrayValue else {
            throw client.fail("\(database) answered \(response.status): \(String(decoding: response.body.prefix(200), as: UTF8.self))")
        }
        return rows.map { row in
            Row(id: row["id"]?.stringValue ?? "", winner: row["rev"]?.stringValue ?? "",
                conflicts: row["conflicts"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        }
    }

    private func local() async throws -> [Row] {
        let (directory, path, _) = try location.open(label: "settee.conflicts")
        guard let db = try directory.database(named: database) else {
            throw ValidationError("no database \(database) in \(path)")
        }
        return try await db.conflictedDocuments(limit: limit).map { document in
            Row(id: document.id, winner: document.winner.description, conflicts: document.conflicts.map(\.description))
        }
    }
}
