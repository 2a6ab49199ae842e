public import SetteeJSON

/// A database at a URL (another Settee, Apache CouchDB, PouchDB Server) as a
/// replication peer, spoken to as CouchDB 3's replicator speaks: `_changes`
/// with `style=all_docs`, `_revs_diff`, `_bulk_get` (falling back to
/// `open_revs` where it is missing), `_bulk_docs` with `new_edits:false`.
public struct RemotePeer: Peer {
    public let endpoint: RemoteEndpoint
    let session: CurlSession
    let timeout: Duration
    let login: PeerLogin
    /// Where attachment bytes wait between source and target.
    let spool: SpoolDirectory
    /// The multipart `PUT`s (documents with attachments) in flight to this peer at once.
    let uploads = ConcurrencyLimit(RemotePeer.concurrentUploads)
    /// The checkpoint documents' revs as last read or written, for the next `PUT`.
    let checkpointRevisions = CheckpointRevisions()

    /// How many documents with attachments are written at once: with every chunk's `PUT`s
    /// unbounded, one replication ran dozens, each holding its attachments (issue 45 item 4).
    static let concurrentUploads = 4

    public init(endpoint: RemoteEndpoint, session: CurlSession, timeout: Duration = .seconds(30),
                spool: SpoolDirectory = .temporary) {
        self.endpoint = endpoint
        self.spool = spool
        // A pinned peer gets a session of its own: nothing verified otherwise is reused for it.
        self.session = session.trusting(endpoint.pinnedFingerprint)
        self.timeout = timeout
        login = PeerLogin(endpoint: endpoint)
    }

    public var displayName: String { endpoint.displayName }

    public func identity() async throws -> PeerIdentity {
        let welcome = try await json(.init(method: "GET", url: endpoint.root + "/"), expecting: [200])
        // Without a uuid (PouchDB's does the same) the address stands in for it.
        return PeerIdentity(serverUUID: welcome["uuid"]?.stringValue ?? endpoint.root, database: endpoint.name)
    }

    public func exists() async throws -> Bool {
        let response = try await send(.init(method: "GET", url: endpoint.database))
        if response.status == 404 { return false }
        try check(response, expecting: [200])
        return true
    }

    public func create(parameters: [String: String]) async throws {
        let query = parameters.sorted { $0.key < $1.key }
            .map { RemoteEndpoint.encode($0.key) + "=" + RemoteEndpoint.encode($0.value) }.joined(separator: "&")
        let response = try await send(.init(method: "PUT", url: endpoint.database + (query.isEmpty ? "" : "?" + query)))
        try check(response, expecting: [201, 202, 412])
    }

    public func filterCode(_ name: String) async throws -> String {
        let parts = name.split(separator: "/", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { throw ReplicationError.filterNotFound(peer: displayName, name: name, reason: "missing") }
        let response = try await send(.init(method: "GET", url: endpoint.database + "/_design/" + RemoteEndpoint.encode(parts[0])))
        if response.status == 404 {
            throw ReplicationError.filterNotFound(peer: displayName, name: name, reason: "missing")
        }
        try check(response, expecting: [200])
        guard let source = try parse(response)["filters"]?[parts[1]]?.stringValue else {
            throw ReplicationError.filterNotFound(peer: displayName, name: name, reason: "missing json key: \(parts[1])")
        }
        return source
    }

    public func changes(since: JSONValue, limit: Int, filter: ChangesFilter?, wait: Duration?) async throws -> ChangesPage {
        var query = "style=all_docs&limit=\(limit)&since=" + RemoteEndpoint.encode(Self.sinceText(since))
        if let wait { query += "&feed=longpoll&timeout=\(wait.milliseconds)" }
        var request = RemoteRequest(method: "GET", url: endpoint.database + "/_changes?" + query)
        switch filter {
        case .docIDs(let ids)?:
            request = post("/_changes?" + query + "&filter=_doc_ids", ["doc_ids": .array(ids.map { .string($0) })])
        case .selector(let selector)?:
            request = post("/_changes?" + query + "&filter=_selector", ["selector": selector])
        case .function(let name, let parameters)?:
            // As CouchDB's replicator sends them: the filter's `req.query` in the URL.
            var url = request.url + "&filter=" + RemoteEndpoint.encode(name)
            for member in parameters where !["style", "limit", "since", "feed", "timeout", "filter"].contains(member.key) {
                url += "&" + RemoteEndpoint.encode(member.key) + "="
                    + RemoteEndpoint.encode(member.value.stringValue ?? JSONWriter.string(member.value))
            }
            request = RemoteRequest(method: "GET", url: url)
        case nil: break
        }
        // A longpoll may rightly take its whole timeout before answering.
        request.timeout = timeout + (wait ?? .zero)
        let response = try await send(request)
        try check(response, expecting: [200])
        if let page = response.body.withUnsafeBufferPointer({ ChangesAnswer.scan($0) }) { return page }
        // Any other shape is read as the whole parse reads it (`ChangesAnswer`).
        let answer = try parse(response)
        guard let results = answer["results"]?.arrayValue, let lastSeq = answer["last_seq"] else {
            throw ReplicationError.malformedAnswer(peer: displayName, what: "_changes")
        }
        let rows = try results.map { row -> ChangeRow in
            guard let id = row["id"]?.stringValue, let seq = row["seq"], let changes = row["changes"]?.arrayValue else {
                throw ReplicationError.malformedAnswer(peer: displayName, what: "_changes row")
            }
            return ChangeRow(seq: seq, id: id, revisions: changes.compactMap { $0["rev"]?.stringValue })
        }
        return ChangesPage(rows: rows, lastSeq: lastSeq)
    }

    /// A sequence as CouchDB's replicator puts it in a URL: a string as it is, anything else as JSON.
    static func sinceText(_ seq: JSONValue) -> String {
        seq.stringValue ?? String(decoding: JSONWriter.serialize(seq), as: UTF8.self)
    }

    public func missingRevisions(_ revisions: [String: [String]]) async throws -> [String: MissingRevisions] {
        let response = try await send(post("/_revs_diff", body: RevsDiffAnswer.body(revisions)))
        try check(response, expecting: [200])
        if let missing = response.body.withUnsafeBufferPointer({ RevsDiffAnswer.scan($0) }) { return missing }
        // Any other shape is read as the whole parse reads it (`RevsDiffAnswer`).
        let answer = try parse(response)
        var missing: [String: MissingRevisions] = [:]
        for member in answer.objectValue ?? JSONObject() {
            missing[member.key] = MissingRevisions(
                missing: member.value["missing"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                possibleAncestors: member.value["possible_ancestors"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        }
        return missing
    }

    public func checkpoint(id: String) async throws -> JSONObject? {
        let response = try await send(.init(method: "GET", url: localURL(id)))
        var document: JSONObject?
        if response.status != 404 {
            try check(response, expecting: [200])
            document = try parse(response).objectValue
        }
        checkpointRevisions.remember(id, read: document)
        return document
    }

    /// CouchDB 3 takes any `_rev` on a local document; PouchDB Server and CouchDB 1 want
    /// the current one, so the one last read or written is sent, and on a 409 (another
    /// writer in between) the document is read again and the `PUT` made once more.
    public func saveCheckpoint(id: String, _ body: JSONObject) async throws {
        if checkpointRevisions[id] == .unknown { _ = try await checkpoint(id: id) }
        var response = try await putCheckpoint(id: id, body)
        if response.status == 409 {
            _ = try await checkpoint(id: id)
            response = try await putCheckpoint(id: id, body)
        }
        try check(response, expecting: [200, 201])
        let rev = try? parse(response)["rev"]?.stringValue
        checkpointRevisions[id] = rev.map { .stored(rev: $0) } ?? .unknown
    }

    private func putCheckpoint(id: String, _ body: JSONObject) async throws -> RemoteResponse {
        var document = body
        if case .stored(let rev) = checkpointRevisions[id] { document.append("_rev", .string(rev)) }
        var request = RemoteRequest(method: "PUT", url: localURL(id), body: JSONWriter.serialize(.object(document)),
                                    timeout: timeout)
        request.headers.append(("Content-Type", "application/json"))
        return try await send(request)
    }

    private func localURL(_ id: String) -> String { endpoint.database + "/_local/" + RemoteEndpoint.encode(id) }

    // MARK: Exchanges

    func post(_ path: String, _ body: JSONValue) -> RemoteRequest {
        post(path, body: JSONWriter.serialize(body))
    }

    func post(_ path: String, body: [UInt8]) -> RemoteRequest {
        RemoteRequest(method: "POST", url: endpoint.database + path, headers: [("Content-Type", "application/json")],
                      body: body, timeout: timeout)
    }

    func send(_ request: RemoteRequest) async throws -> RemoteResponse {
        try await exchange(request) { signed throws(RemoteError) in (try await session.send(signed), ()) }.0
    }

    /// Sends `request` signed (credentials, the endpoint's headers), once more after a
    /// login when a session cookie was refused; `perform` makes each attempt.
    func exchange<Extra: Sendable>(_ request: RemoteRequest,
                                   _ perform: (RemoteRequest) async throws(RemoteError) -> (RemoteResponse, Extra))
        async throws -> (RemoteResponse, Extra) {
        for attempt in 0..<2 {
            var signed = request
            signed.headers += endpoint.headers
            let credential = await login.header(session)
            if let credential { signed.headers.append(credential) }
            let response: (RemoteResponse, Extra)
            do {
                response = try await perform(signed)
            } catch .cancelled {
                throw ReplicationError.cancelled
            } catch .certificateMismatch(let expected, let presented) {
                throw ReplicationError.certificateMismatch(peer: displayName, expected: expected, presented: presented)
            } catch {
                throw ReplicationError.unreachable(peer: displayName, cause: "\(error)")
            }
            guard attempt == 0, login.observe(response.0, sentCookie: credential?.0 == "Cookie") else { return response }
        }
        preconditionFailure("the loop returns on its second pass")
    }

    func json(_ request: RemoteRequest, expecting statuses: Set<Int>) async throws -> JSONValue {
        let response = try await send(request)
        try check(response, expecting: statuses)
        return try parse(response)
    }

    func parse(_ response: RemoteResponse) throws -> JSONValue {
        // No body at all is no malformed JSON: a server that stops (a restart) ends a
        // waiting longpoll `_changes` so, then closes the connection (issue 47).
        guard !response.body.isEmpty else {
            throw ReplicationError.unreachable(peer: displayName,
                                               cause: "it closed the connection with no answer body (status \(response.status))")
        }
        do {
            return try JSONReader.parse(response.body)
        } catch {
            throw ReplicationError.malformedAnswer(peer: displayName, what: "JSON body")
        }
    }

    /// An unexpected status as CouchDB's `{error, reason}`.
    func check(_ response: RemoteResponse, expecting statuses: Set<Int>) throws {
        guard !statuses.contains(response.status) else { return }
        let body = try? JSONReader.parse(response.body)
        throw ReplicationError.peerError(peer: displayName, status: response.status,
                                         error: body?["error"]?.stringValue ?? "unknown",
                                         reason: body?["reason"]?.stringValue ?? "")
    }
}

extension Duration {
    /// Whole milliseconds, as `_changes`' `timeout` takes them.
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
