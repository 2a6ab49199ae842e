import Foundation
import Logging
import SetteeJSON
@testable import SetteeReplicator
import SetteeTestSupport
import Testing

/// Settee's replicator against `RecordedCouchDB`, which answers as Apache CouchDB
/// 3.4.3 answered in ../shared/spec/transcripts/: string sequences, a cookie session,
/// `_bulk_get` (or, without it, `open_revs` as `multipart/mixed` with gzip'd parts),
/// and as a target the writes CouchDB's own replicator makes. The live interop tests
/// (`COUCHDB_URL`) run the same against a real CouchDB outside CI.
@Suite(.serialized) struct RecordedCouchDBTests {
    typealias Revision = RecordedCouchDB.Revision
    typealias Attachment = RecordedCouchDB.Attachment

    /// The recorded source's documents (ids, revisions and bodies from the transcript
    /// where it shows them): a conflict, a deletion, a design document, a document with a
    /// binary and a gzip'd attachment, and plain ones.
    static func fill(_ couch: RecordedCouchDB, _ db: String) {
        couch.put(db, id: "doc000000", Revision(start: 1, history: ["8f9a440806b30273f1910d9cf9ac11ac"],
                                                body: ["i": 0, "text": "", "nested": ["a": [0, "0"]]], deleted: false, attachments: [:]))
        couch.put(db, id: "doc000000", Revision(start: 1, history: ["conflict0000"], body: ["side": "b"], deleted: false,
                                                attachments: [:]))
        couch.put(db, id: "doc000001", Revision(start: 2, history: ["b9c35683e25b02361b8673a523cbe727", "9901cae4ea04dbbe2fc860c5f17c34aa"],
                                                body: [:], deleted: true, attachments: [:]))
        couch.put(db, id: "doc000002", Revision(start: 1, history: ["ec21274fdfef1a29067d3d578fb53a05"],
                                                body: ["i": 2, "text": "xx", "nested": ["a": [2, "2"]]], deleted: false, attachments: [:]))
        couch.put(db, id: "doc000003", Revision(
            start: 2, history: ["ec3a565c3fec9e9e532e1f052f19ead8", "6dc5cdb1c47ddc90b8dc8877014c7b5a"],
            body: ["i": 3, "text": "xxx", "nested": ["a": [3, "3"]]], deleted: false,
            attachments: ["blob.bin": Attachment(contentType: "application/octet-stream", data: blob, gzipped: nil, revpos: 2),
                          "note.txt": Attachment(contentType: "text/plain", data: Array(noteText.utf8), gzipped: noteGzip, revpos: 2)]))
        couch.put(db, id: "_design/app", Revision(start: 1, history: ["4e4e6495ce418dcc2f00ba7c77113900"],
                                                  body: ["views": [:], "language": "javascript", "note": "design doc"],
                                                  deleted: false, attachments: [:]))
        for i in 4..<40 {
            couch.put(db, id: String(format: "doc%06d", i), Revision(
                start: 1, history: [String(format: "%032x", i * 7919)],
                body: ["i": .int(i), "text": .string(String(repeating: "x", count: i)), "nested": ["a": [.int(i), .string(String(i))]]],
                deleted: false, attachments: [:]))
        }
    }

    static let blob: [UInt8] = (0..<2003).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
    static let noteText = "couch notes, gzip'd by the source\n" + "couch notes, gzip'd by the source\n"
        + "couch notes, gzip'd by the source\n"
    /// `gzip.compress(noteText, mtime=0)`: as CouchDB stores a text/plain attachment.
    static let noteGzip: [UInt8] = [31, 139, 8, 0, 0, 0, 0, 0, 2, 3, 75, 206, 47, 77, 206, 80, 200, 203, 47, 73, 45, 214, 81,
                                    72, 175, 202, 44, 80, 79, 81, 72, 170, 84, 40, 201, 72, 85, 40, 206, 47, 45, 74, 78,
                                    229, 74, 166, 130, 10, 0, 153, 134, 181, 199, 102, 0, 0, 0]

    /// Every leaf of every document: rev, history, deleted, body, attachments' identity bytes.
    static func picture(of couch: RecordedCouchDB, _ db: String) -> [String: [String]] {
        var out: [String: [String]] = [:]
        for (id, leaves) in couch.database(db)?.leaves ?? [:] {
            out[id] = leaves.map { leaf in
                let attachments = leaf.attachments.map { "\($0.key):\($0.value.contentType):\(Data($0.value.data).base64EncodedString())" }
                return "\(leaf.rev) \(leaf.history.joined(separator: "<")) \(leaf.deleted) "
                    + String(decoding: JSONWriter.serialize(.object(leaf.body)), as: UTF8.self) + " \(attachments.sorted())"
            }.sorted()
        }
        return out
    }

    /// The same picture of a Settee database, from `_bulk_get?attachments=true` (identity bytes inline).
    static func picture(of server: RemoteServer, _ db: String) async throws -> [String: [String]] {
        let changes = try await server.request("GET", "/\(db)/_changes?style=all_docs").json
        var out: [String: [String]] = [:]
        for row in changes["results"]?.arrayValue ?? [] {
            guard let id = row["id"]?.stringValue else { continue }
            let docs: [JSONValue] = (row["changes"]?.arrayValue ?? []).map { ["id": .string(id), "rev": $0["rev"] ?? .null] }
            let answer = try await server.request("POST", "/\(db)/_bulk_get?revs=true&attachments=true",
                                                  json: ["docs": .array(docs)]).json
            out[id] = (answer["results"]?.arrayValue ?? []).flatMap { $0["docs"]?.arrayValue ?? [] }.compactMap { $0["ok"]?.objectValue }.map { doc in
                var body = JSONObject()
                for member in doc where !member.key.hasPrefix("_") { body.append(member.key, member.value) }
                let start = doc["_revisions"]?["start"]?.intValue ?? 0
                let history = doc["_revisions"]?["ids"]?.arrayValue?.compactMap(\.stringValue) ?? []
                let attachments = (doc["_attachments"]?.objectValue ?? JSONObject()).map {
                    "\($0.key):\($0.value["content_type"]?.stringValue ?? ""):\($0.value["data"]?.stringValue ?? "")"
                }
                return "\(start)-\(history.first ?? "") \(history.joined(separator: "<")) \(doc["_deleted"] == true) "
                    + String(decoding: JSONWriter.serialize(.object(body)), as: UTF8.self) + " \(attachments.sorted())"
            }.sorted()
        }
        return out
    }

    private func replicate(_ source: any Peer, _ target: any Peer) async throws -> Replication.Outcome {
        var options = ReplicationOptions()
        options.createTarget = true
        return try await Replication(source: source, target: target, options: options, logger: Logger(label: "test")).run()
    }

    @Test(arguments: [true, false])
    func pullFromCouchDBCopiesEveryLeafAndResumesFromItsCheckpoint(hasBulkGet: Bool) async throws {
        let couch = RecordedCouchDB(hasBulkGet: hasBulkGet)
        try couch.start()
        Self.fill(couch, "tsrc")
        let settee = try RemoteServer()
        let source = RemotePeer(endpoint: try RemoteEndpoint(url: couch.url("tsrc")), session: CurlSession())
        let outcome = try await replicate(source, try settee.peer("tpull"))
        #expect(outcome.stats.docWriteFailures == 0)
        #expect(try await Self.picture(of: settee, "tpull") == Self.picture(of: couch, "tsrc"))
        // The checkpoint keeps CouchDB's opaque string sequence, on both sides.
        #expect(outcome.sourceLastSeq.stringValue == RecordedCouchDB.sequence(couch.database("tsrc")?.seq ?? -1))
        let log = couch.log
        #expect(log.first == "POST /_session")
        #expect(couch.cookieRequests == log.count - 1)
        #expect(log.contains { $0.hasPrefix("PUT /tsrc/_local/") })
        if hasBulkGet {
            #expect(log.contains { $0.hasPrefix("POST /tsrc/_bulk_get") })
            #expect(log.contains { $0.hasPrefix("GET /tsrc/doc000003/note.txt?rev=") })
        } else {
            #expect(log.contains { $0.hasPrefix("GET /tsrc/doc000003?") })
            #expect(!log.contains { $0.hasPrefix("GET /tsrc/doc000003/") })
        }

        // A new change on the CouchDB side: the second run starts from the checkpoint.
        couch.put("tsrc", id: "doc000002", Revision(start: 2, history: ["0000000000000000000000000000beef", "ec21274fdfef1a29067d3d578fb53a05"],
                                                    body: ["i": 2, "edited": true], deleted: false, attachments: [:]))
        let before = couch.log.count
        let again = try await replicate(source, try settee.peer("tpull"))
        #expect(again.stats.docsWritten == 1)
        #expect(try await Self.picture(of: settee, "tpull") == Self.picture(of: couch, "tsrc"))
        let changesAsked = couch.log[before...].first { $0.hasPrefix("GET /tsrc/_changes") } ?? ""
        #expect(changesAsked.contains("since=" + RemoteEndpoint.encode(outcome.sourceLastSeq.stringValue ?? "")))
        await couch.stop()
    }

    @Test func pushToCouchDBWritesAsCouchDBsReplicatorDoes() async throws {
        let settee = try RemoteServer()
        try await settee.fill("src", count: 30)
        let couch = RecordedCouchDB()
        try couch.start()
        let target = RemotePeer(endpoint: try RemoteEndpoint(url: couch.url("tpush")), session: CurlSession())
        let outcome = try await replicate(try settee.peer("src"), target)
        #expect(outcome.stats.docWriteFailures == 0)
        #expect(try await Self.picture(of: settee, "src") == Self.picture(of: couch, "tpush"))
        let log = couch.log
        // create_target, then _revs_diff, _bulk_docs and one multipart PUT per document with attachment bodies.
        #expect(log.contains("PUT /tpush"))
        #expect(log.contains("POST /tpush/_revs_diff") && log.contains("POST /tpush/_bulk_docs"))
        #expect(log.contains("PUT /tpush/conflicted?new_edits=false"))
        #expect(couch.uploadTypes.allSatisfy { $0.hasPrefix("multipart/related; boundary=") } && !couch.uploadTypes.isEmpty)
        // The checkpoint is a _local document on the CouchDB side too; _local documents themselves never travel.
        #expect(couch.database("tpush")?.locals.count == 1)
        #expect(couch.database("tpush")?.leaves["_local/private"] == nil)
        await couch.stop()
    }

    /// As CouchDB's replicator (spec/transcripts/): each checkpoint document is read once,
    /// and every later `PUT` names the rev the one before was answered, so a server that
    /// checks local revs accepts each `PUT` with no `GET` in between.
    @Test func aCheckpointIsReadOnceAndEachPutNamesTheRevTheLastAnswered() async throws {
        let couch = RecordedCouchDB(checksLocalRevisions: true)
        try couch.start()
        couch.put("tck", id: "a", Revision(start: 1, history: ["a1"], body: [:], deleted: false, attachments: [:]))
        let peer = RemotePeer(endpoint: try RemoteEndpoint(url: couch.url("tck")), session: CurlSession())
        #expect(try await peer.checkpoint(id: "rep") == nil)
        for seq in 1...3 { try await peer.saveCheckpoint(id: "rep", ["source_last_seq": .int(seq)]) }
        let checkpointRequests = couch.log.filter { $0.contains("/_local/") }
        #expect(checkpointRequests == ["GET /tck/_local/rep"] + Array(repeating: "PUT /tck/_local/rep", count: 3))
        #expect(couch.database("tck")?.localRevs["rep"] == "0-3")
        await couch.stop()
    }

    /// A rev gone stale (another writer put the document in between) is answered 409 by
    /// such a server: the document is read again and the checkpoint written.
    @Test func aCheckpointPutAnswered409IsMadeAgainWithTheRevReadAfresh() async throws {
        let couch = RecordedCouchDB(checksLocalRevisions: true)
        try couch.start()
        couch.put("tck", id: "a", Revision(start: 1, history: ["a1"], body: [:], deleted: false, attachments: [:]))
        let peer = RemotePeer(endpoint: try RemoteEndpoint(url: couch.url("tck")), session: CurlSession())
        #expect(try await peer.checkpoint(id: "rep") == nil)
        try await peer.saveCheckpoint(id: "rep", ["source_last_seq": 1])
        let other = RemotePeer(endpoint: try RemoteEndpoint(url: couch.url("tck")), session: CurlSession())
        try await other.saveCheckpoint(id: "rep", ["source_last_seq": 99])
        try await peer.saveCheckpoint(id: "rep", ["source_last_seq": 2])
        #expect(couch.database("tck")?.locals["rep"]?["source_last_seq"] == 2)
        #expect(couch.database("tck")?.localRevs["rep"] == "0-3")
        let lastRequests = couch.log.filter { $0.contains("/_local/") }.suffix(3)
        #expect(lastRequests == ["PUT /tck/_local/rep", "GET /tck/_local/rep", "PUT /tck/_local/rep"])
        await couch.stop()
    }
}
