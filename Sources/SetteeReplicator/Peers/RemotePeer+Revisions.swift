internal import SetteeJSON

/*
 Revisions fetched from a remote source (`_bulk_get`) and written to a remote target
 (`_bulk_docs` with `new_edits: false`, or one multipart PUT per document with
 attachment bytes), as CouchDB's replicator does.

 A `_bulk_get` answer is read in one pass (`BulkGetAnswer`): a document without
 attachments stays the source's text, which the `_bulk_docs` body copies; only
 documents with attachments, and answers of any other shape, are parsed.
 */
extension RemotePeer {
    /// `_bulk_get` with stubs (small JSON), then each attachment the target lacks
    /// as raw bytes from its own URL: no base64 in either direction.
    public func revisions(_ requests: [RevisionRequest]) async throws -> [TransferRevision] {
        let docs: [JSONValue] = requests.map { ["id": .string($0.id), "rev": .string($0.rev)] }
        var request = post("/_bulk_get?revs=true&latest=true", ["docs": .array(docs)])
        request.headers.append(("Accept", "application/json"))
        let response = try await send(request)
        // CouchDB before 2.2, and servers that never had it, lack _bulk_get: one document at a time then.
        if [400, 404, 405, 501].contains(response.status) { return try await openRevs(requests) }
        try check(response, expecting: [200])
        let found = try response.body.withUnsafeBufferPointer { BulkGetAnswer.scan($0) }
            .map { try foundRevisions(requests, $0, in: response.body) } ?? parsedRevisions(requests, response)
        return try await withAttachments(found)
    }

    /// The revisions of a scanned `_bulk_get` answer: each document without attachments as
    /// its text; those with attachments parsed, for `withAttachments` to read.
    private func foundRevisions(_ requests: [RevisionRequest], _ results: [[BulkGetAnswer.Entry]],
                                in body: [UInt8]) throws -> [(RevisionRequest, TransferRevision)] {
        guard results.count == requests.count else { throw ReplicationError.malformedAnswer(peer: displayName, what: "_bulk_get") }
        var found: [(RevisionRequest, TransferRevision)] = []
        found.reserveCapacity(requests.count)
        for (request, entries) in zip(requests, results) {
            for entry in entries {
                // An error entry is a revision the source listed but cannot serve now: never skipped.
                guard case .ok(let doc) = entry else { throw ReplicationError.revisionMissing(request.id, request.rev) }
                let text = TransferRevision(text: body, range: doc.text, id: doc.id, rev: doc.rev)
                found.append((request, doc.hasAttachments ? TransferRevision(json: try text.json()) : text))
            }
        }
        return found
    }

    /// The revisions of a `_bulk_get` answer parsed whole: any answer `BulkGetAnswer` does
    /// not read (its errors are `JSONReader`'s).
    private func parsedRevisions(_ requests: [RevisionRequest],
                                 _ response: RemoteResponse) throws -> [(RevisionRequest, TransferRevision)] {
        guard let results = try parse(response)["results"]?.arrayValue, results.count == requests.count else {
            throw ReplicationError.malformedAnswer(peer: displayName, what: "_bulk_get")
        }
        return try zip(requests, results).flatMap { request, result in
            try (result["docs"]?.arrayValue ?? []).map { entry in
                // An error entry is a revision the source listed but cannot serve now: never skipped.
                guard let doc = entry["ok"]?.objectValue else {
                    throw ReplicationError.revisionMissing(request.id, request.rev)
                }
                return (request, TransferRevision(json: doc))
            }
        }
    }

    /// Documents without attachment bytes go in `_bulk_docs`; each one with bytes is a
    /// `multipart/related` `PUT ?new_edits=false`, as CouchDB's replicator sends them.
    public func write(_ revisions: [TransferRevision]) async throws -> [WriteFailure] {
        var failures = try await bulkDocs(revisions.filter { $0.attachments.isEmpty })
        // Several at once (the target commits concurrent writes together: fewer fsyncs),
        // and no more than `uploads` allows across the replication's chunks.
        try await withThrowingTaskGroup(of: WriteFailure?.self) { group in
            for revision in revisions where !revision.attachments.isEmpty {
                group.addTask { try await self.uploads.run { try await self.putMultipart(revision) } }
            }
            for try await failure in group { if let failure { failures.append(failure) } }
        }
        return failures
    }

    private func bulkDocs(_ docs: [TransferRevision]) async throws -> [WriteFailure] {
        guard !docs.isEmpty else { return [] }
        let response = try await send(post("/_bulk_docs", body: Self.bulkDocsBody(docs)))
        if response.status == 413 {
            // Too large together: halves, down to single documents, which then count as failures.
            guard docs.count > 1 else {
                return [WriteFailure(id: docs[0].id, rev: docs[0].rev, error: "too_large",
                                     reason: "the request entity is too large")]
            }
            let half = docs.count / 2
            return try await bulkDocs(Array(docs[..<half])) + (try await bulkDocs(Array(docs[half...])))
        }
        try check(response, expecting: [201, 202])
        return (try parse(response).arrayValue ?? []).compactMap { row in
            guard let error = row["error"]?.stringValue else { return nil }
            return WriteFailure(id: row["id"]?.stringValue ?? "", rev: row["rev"]?.stringValue, error: error,
                                reason: row["reason"]?.stringValue ?? "")
        }
    }

    /// `{"new_edits":false,"docs":[...]}`, each document's text copied from the source's
    /// answer where it came as text (`TransferRevision.write(to:)`).
    static func bulkDocsBody(_ docs: [TransferRevision]) -> [UInt8] {
        var body: [UInt8] = Array(#"{"new_edits":false,"docs":["#.utf8)
        body.reserveCapacity(docs.reduce(body.count + 2) { $0 + $1.estimatedLength + 1 })
        for (index, doc) in docs.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            doc.write(to: &body)
        }
        body.append(contentsOf: "]}".utf8)
        return body
    }
}
