public import SetteeJSON
public import SetteeStore
internal import SetteeDocuments

/// A database of this process's store as a replication peer: no HTTP, the same
/// document forms (`RevisionJSON`, `DocumentParser`) the server speaks, so a
/// local peer sends and takes exactly what a remote Settee would.
public struct LocalPeer: Peer {
    let directory: DatabaseDirectory
    let name: String
    let serverUUID: String
    let maxDocumentSize: Int
    /// Runs filter functions; without it a filtered replication from here is refused.
    let filters: (any FilterFunctionRunner)?
    /// The `file://` directory this database is in, kept open (and locked) while the peer lives.
    let fileDirectory: FileDirectory?
    public let displayName: String

    public init(directory: DatabaseDirectory, name: String, serverUUID: String, maxDocumentSize: Int = 8_000_000,
                filters: (any FilterFunctionRunner)? = nil) {
        self.directory = directory
        self.name = name
        self.serverUUID = serverUUID
        self.maxDocumentSize = maxDocumentSize
        self.filters = filters
        fileDirectory = nil
        displayName = name
    }

    /// A database of a data directory named by a `file://` URL (sneakernet), under that
    /// directory's uuid, shown as its URL.
    public init(file endpoint: FileEndpoint, in directory: FileDirectory, maxDocumentSize: Int = 8_000_000,
                filters: (any FilterFunctionRunner)? = nil) {
        self.directory = directory.databases
        name = endpoint.name
        serverUUID = directory.uuid
        self.maxDocumentSize = maxDocumentSize
        self.filters = filters
        fileDirectory = directory
        displayName = endpoint.url
    }

    public var inFlightKey: String? { "\(ObjectIdentifier(directory))/\(name)" }

    public func identity() async throws -> PeerIdentity { PeerIdentity(serverUUID: serverUUID, database: name) }

    public func exists() async throws -> Bool { try await directory.open(name) != nil }

    /// `q` is kept as the server keeps it at creation; `n` and `partitioned` mean nothing on one node.
    public func create(parameters: [String: String]) async throws {
        do {
            let database = try await directory.create(named: name)
            if let q = parameters["q"].flatMap(Int.init), q > 0 { try await database.setShardCount(q) }
        } catch StoreError.databaseExists {
            return
        }
    }

    private func database() async throws -> Database {
        guard let database = try await directory.open(name) else { throw ReplicationError.databaseNotFound(displayName) }
        return database
    }

    public func filterCode(_ name: String) async throws -> String {
        let parts = name.split(separator: "/", maxSplits: 1).map(String.init)
        let id = "_design/" + (parts.first ?? "")
        guard parts.count == 2, let stored = try await database().winner(id: id), !stored.isDeleted,
              let body = stored.body.flatMap({ try? JSONReader.parse($0) }) else {
            throw ReplicationError.filterNotFound(peer: self.name, name: name, reason: "missing")
        }
        guard let source = body["filters"]?[parts[1]]?.stringValue else {
            throw ReplicationError.filterNotFound(peer: self.name, name: name, reason: "missing json key: \(parts[1])")
        }
        return source
    }

    public func changes(since: JSONValue, limit: Int, filter: ChangesFilter?, wait: Duration?) async throws -> ChangesPage {
        let database = try await database()
        let start = Self.sequence(since)
        let test = try await self.test(filter, database)
        var page = try await read(database, since: start, limit: limit, filter: filter, test: test)
        if page.rows.isEmpty, let wait, await database.changesNotifier.wait(after: start, timeout: wait) != nil {
            page = try await read(database, since: start, limit: limit, filter: filter, test: test)
        }
        return page
    }

    /// The per-document test a selector or a filter function makes; nil for none (or `doc_ids`).
    private func test(_ filter: ChangesFilter?, _ database: Database) async throws -> (@Sendable (String) async throws -> Bool)? {
        switch filter {
        case .selector(let value)?:
            let selector: Selector
            do { selector = try Selector(value) } catch { throw ReplicationError.invalidOption("Invalid selector: \(error)") }
            return { id in try await selector.matchesWinner(of: id, in: database) }
        case .function(let name, let query)?:
            guard let filters else {
                throw ReplicationError.invalidOption("`filter` replications from a local database need JavaScript")
            }
            return try await filters.test(name, query: query, in: database)
        case .docIDs?, nil:
            return nil
        }
    }

    /// Up to `limit` changes that pass the filter. With a test, pages are read
    /// until that many match or the feed ends, so a short page still means its end.
    private func read(_ database: Database, since: Int64, limit: Int, filter: ChangesFilter?,
                      test: (@Sendable (String) async throws -> Bool)?) async throws -> ChangesPage {
        var ids: Set<String>?
        if case .docIDs(let list)? = filter { ids = Set(list) }
        // The head is read first: every change up to it is in a page that is not cut by `limit`.
        let head = database.changesNotifier.sequence
        var rows: [ChangeRow] = []
        var scanned = since
        while rows.count < limit {
            let changes = try await database.changes(since: scanned, limit: limit, descending: false, docIDs: ids)
            for change in changes where rows.count < limit {
                scanned = change.sequence
                if let test, !(try await test(change.id)) { continue }
                rows.append(ChangeRow(seq: .number(JSONNumber(change.sequence)), id: change.id,
                                      revisions: change.leaves.map(\.description)))
            }
            if changes.count < limit || test == nil { break }
        }
        let reached = rows.count < limit ? max(head, scanned) : scanned
        return ChangesPage(rows: rows, lastSeq: .number(JSONNumber(max(reached, since))))
    }

    /// Local sequences are integers; a seq from elsewhere (never expected) starts from 0.
    static func sequence(_ value: JSONValue) -> Int64 {
        if let n = value.numberValue?.int { return n }
        if let text = value.stringValue, let n = Int64(text) { return n }
        return 0
    }

    public func missingRevisions(_ revisions: [String: [String]]) async throws -> [String: MissingRevisions] {
        let request = revisions.map { (id: $0.key, revs: $0.value.compactMap(RevisionID.init)) }
        var answer: [String: MissingRevisions] = [:]
        for diff in try await database().revisionsDiff(request) where !diff.missing.isEmpty {
            answer[diff.id] = MissingRevisions(missing: diff.missing.map(\.description),
                                               possibleAncestors: diff.possibleAncestors.map(\.description))
        }
        return answer
    }

    public func revisions(_ requests: [RevisionRequest]) async throws -> [TransferRevision] {
        let database = try await database()
        var options = DocumentOptions()
        options.revs = true
        var out: [TransferRevision] = []
        for request in requests {
            guard let rev = RevisionID(request.rev) else { throw ReplicationError.revisionMissing(request.id, request.rev) }
            let attsSince = request.attsSince.compactMap(RevisionID.init)
            for (document, revision) in try await Self.latest(database, id: request.id, rev: rev) {
                let json = try RevisionJSON.render(document, revision, options: options).jsonValue()
                guard var object = json.objectValue else { throw ReplicationError.revisionMissing(request.id, request.rev) }
                var bodies: [String: AttachmentBody] = [:]
                var entries = object["_attachments"]?.objectValue ?? JSONObject()
                // Read when the target takes them, a piece at a time: never whole in memory.
                for attachment in AttachmentJSON.toSend(document.tree, revision, attsSince: attsSince) {
                    bodies[attachment.name] = AttachmentBody(stored: attachment, in: database, id: document.id,
                                                             rev: revision.rev)
                    entries[attachment.name] = TransferRevision.followsEntry(
                        contentType: attachment.contentType, revpos: attachment.revpos, length: attachment.length)
                }
                if !bodies.isEmpty { object["_attachments"] = .object(entries) }
                out.append(TransferRevision(json: object, attachments: bodies))
            }
        }
        return out
    }

    /// `rev`, or the leaves that have replaced it since the change was listed
    /// (CouchDB's `latest=true`). A revision with no body left is an error, never skipped.
    static func latest(_ database: Database, id: String,
                       rev: RevisionID) async throws -> [(StoredDocument, StoredRevision)] {
        guard let document = try await database.document(id: id, revisions: .revision(rev)) else {
            throw ReplicationError.revisionMissing(id, rev.description)
        }
        var found = document.revisions.map { (document, $0) }
        if !document.tree.isLeaf(rev), let leaves = try await database.document(id: id, revs: document.tree.latest(from: rev)) {
            found = leaves.revisions.map { (leaves, $0) }
        }
        guard !found.isEmpty, found.allSatisfy({ $0.1.body != nil }) else {
            throw ReplicationError.revisionMissing(id, rev.description)
        }
        return found
    }

    public func write(_ revisions: [TransferRevision]) async throws -> [WriteFailure] {
        let database = try await database()
        let parser = DocumentParser(maxDocumentSize: maxDocumentSize)
        var failures: [WriteFailure] = []
        var parsed: [(revision: TransferRevision, document: DocumentParser.Parsed)] = []
        for revision in revisions {
            do {
                parsed.append((revision, try parser.parse(revision.json(), id: nil, newEdits: false, raw: revision.rawMembers)))
            } catch {
                failures.append(Self.badRequest(revision, error))
            }
        }
        // Following attachments are stored first, as a multipart upload's are; several at
        // once, since each is hashed (MD5) as it is stored.
        let followed = try await Self.storeFollowing(parsed, in: database)
        var updates: [DocumentUpdate] = []
        for (index, (revision, document)) in parsed.enumerated() {
            do {
                var update = document.update
                update.attachments = try await AttachmentParser.updates(try AttachmentParser.entries(document.attachments),
                                                                        database, newEdits: false,
                                                                        followed: try followed[index].get())
                updates.append(update)
            } catch {
                failures.append(Self.badRequest(revision, error))
            }
        }
        let results = try await database.update(updates, newEdits: false)
        for (update, result) in zip(updates, results) {
            if case .failure(let error) = result {
                let (word, reason) = Self.describe(error)
                failures.append(WriteFailure(id: update.id, rev: update.history.first?.description, error: word,
                                             reason: reason))
            }
        }
        return failures
    }

    /// How many following attachments of one write are stored at once.
    static let attachmentStores = 4

    /// Each parsed revision's following attachments stored as blobs, by name (or why not).
    private static func storeFollowing(_ parsed: [(revision: TransferRevision, document: DocumentParser.Parsed)],
                                       in database: Database) async throws -> [Result<[String: StoredAttachment], any Error>] {
        let work = parsed.indices.flatMap { index in
            parsed[index].revision.attachments.map { name, body in
                (index: index, name: name, body: body, type: parsed[index].document.attachments?[name]?["content_type"]?
                    .stringValue ?? "application/octet-stream")
            }
        }
        // Results, not throws: one attachment that cannot be stored fails its own document only.
        let outcomes = try await work.concurrentMap(limit: attachmentStores) { item -> Result<StoredAttachment, any Error> in
            do {
                return .success(try await Self.store(item.body, name: item.name, contentType: item.type, in: database))
            } catch let failure as SourceReadFailure {
                throw failure.underlying  // the source's bytes, not this document: retried, or the job ends
            } catch {
                return .failure(error)
            }
        }
        var stored = [Result<[String: StoredAttachment], any Error>](repeating: .success([:]), count: parsed.count)
        for (item, outcome) in zip(work, outcomes) {
            switch (stored[item.index], outcome) {
            case (.success(var named), .success(let attachment)):
                named[item.name] = attachment
                stored[item.index] = .success(named)
            case (.success, .failure(let error)): stored[item.index] = .failure(error)
            case (.failure, _): break
            }
        }
        return stored
    }

    /// Streams `body` into a blob of `database`, a piece at a time; an error leaves no blob.
    private static func store(_ body: AttachmentBody, name: String, contentType: String,
                              in database: Database) async throws -> StoredAttachment {
        let upload = try await database.makeAttachmentUpload(contentType: contentType)
        var isWriting = false
        do {
            try await body.forEachPiece { piece in
                isWriting = true
                try await upload.write(piece)
                isWriting = false
            }
            isWriting = true
            return try await upload.finish(name: name, contentType: contentType, expectedLength: body.length)
        } catch {
            await upload.abort()
            throw isWriting ? error : SourceReadFailure(underlying: error)
        }
    }

    /// The bytes of a following attachment could not be read from the source (a spool
    /// file, the source store): the job's failure, not the document's.
    private struct SourceReadFailure: Error {
        let underlying: any Error
    }

    static func badRequest(_ revision: TransferRevision, _ error: any Error) -> WriteFailure {
        // A store error (a full disk storing an attachment, say) says what the table says.
        if let store = error as? StoreError {
            let (word, reason) = describe(store)
            return WriteFailure(id: revision.id, rev: revision.rev, error: word, reason: reason)
        }
        return WriteFailure(id: revision.id, rev: revision.rev, error: "bad_request", reason: String(describing: error))
    }

    /// CouchDB's error word and reason for a refused replicated write: the store's one
    /// table (`StoreError.couchAnswer`), as the server answers the same write.
    static func describe(_ error: StoreError) -> (String, String) {
        let answer = error.couchAnswer
        return (answer.error, answer.reason)
    }

    public func checkpoint(id: String) async throws -> JSONObject? {
        guard let local = try await database().localDocument(id: id) else { return nil }
        return try JSONReader.parse(local.body).objectValue
    }

    public func saveCheckpoint(id: String, _ body: JSONObject) async throws {
        _ = try await database().putLocal(id: id, body: JSONWriter.serialize(.object(body)), rev: nil, isDeleted: false)
    }
}
