internal import SetteeJSON

/*
 Attachment bytes to and from a remote peer, never whole in memory (issue 45 item 4).

 Read: `_bulk_get` brings stubs; each attachment the target lacks is a GET of its own
 URL whose body the curl thread writes into a `SpoolingCollector` as it arrives
 (memory up to 64 KiB, then an unlinked spool file). Write: a document with
 attachments is a `multipart/related` PUT whose body (`UploadBody`) curl reads from
 the JSON bytes and the spool files as it sends; at most `concurrentUploads` such
 PUTs run at once. A spool file is unlinked from its creation, so an interrupted
 transfer (error, cancellation, kill) leaves nothing on disk.
 */
extension RemotePeer {
    /// How many attachment GETs of one chunk run at once: each waits on the network and
    /// on the source's disk, so one after another left the connections idle
    /// (bench/RESULTS.md, "Attachments in a blob database").
    static let attachmentFetches = 4

    /// Each document with the attachments it needs fetched, in order; the documents
    /// that need some are fetched `attachmentFetches` at a time.
    func withAttachments(_ found: [(RevisionRequest, TransferRevision)]) async throws -> [TransferRevision] {
        var out = found.map(\.1)
        // A document that came as text has no `_attachments` (`BulkGetAnswer` parses those).
        let fetching = found.indices.filter {
            if case .object(let doc) = found[$0].1.document { doc["_attachments"] != nil } else { false }
        }
        let fetched = try await fetching.concurrentMap(limit: Self.attachmentFetches) { index in
            try await self.withAttachments(try found[index].1.json(), attsSince: found[index].0.attsSince)
        }
        for (index, revision) in zip(fetching, fetched) { out[index] = revision }
        return out
    }

    /// `doc` with the attachments newer than the newest of `attsSince` in its history
    /// fetched (CouchDB's `atts_since` rule, applied here), the others left as stubs.
    func withAttachments(_ doc: JSONObject, attsSince: [String]) async throws -> TransferRevision {
        guard var entries = doc["_attachments"]?.objectValue, let id = doc["_id"]?.stringValue,
              let rev = doc["_rev"]?.stringValue else { return TransferRevision(json: doc) }
        let since = Self.sinceGeneration(doc["_revisions"], attsSince: Set(attsSince))
        var bodies: [String: AttachmentBody] = [:]
        for member in entries where (member.value["revpos"]?.intValue ?? 0) > since {
            let body = try await fetchAttachment(member.key, of: id, rev: rev,
                                                 listedLength: member.value["length"]?.intValue.map(Int64.init))
            bodies[member.key] = body
            entries[member.key] = TransferRevision.followsEntry(
                contentType: member.value["content_type"]?.stringValue ?? "application/octet-stream",
                revpos: member.value["revpos"]?.intValue ?? 0, length: body.length)
        }
        var json = doc
        if !bodies.isEmpty { json["_attachments"] = .object(entries) }
        return TransferRevision(json: json, attachments: bodies)
    }

    /// `GET /{db}/{docid}/{name}?rev=` into memory or a spool file.
    /// - Throws: `ReplicationError.revisionMissing` when it is gone (the revision is in
    ///   flux: retried), `.malformedAnswer` when fewer or more bytes came than the stub
    ///   listed (a cut transfer: retried), `.spoolFailed`.
    private func fetchAttachment(_ name: String, of id: String, rev: String, listedLength: Int64?) async throws -> AttachmentBody {
        var get = RemoteRequest(method: "GET", url: endpoint.database + "/" + RemoteEndpoint.documentPath(id) + "/"
            + RemoteEndpoint.attachmentPath(name) + "?rev=" + RemoteEndpoint.encode(rev), timeout: timeout)
        get.headers.append(("Accept", "*/*"))
        let (answer, collector) = try await exchange(get) { signed throws(RemoteError) in
            // A new collector each attempt: a refused first one's bytes are not the attachment.
            let collector = SpoolingCollector(directory: spool)
            let (status, headers) = try await session.stream(signed) { collector.take($0) }
            return (RemoteResponse(status: status, headers: headers, body: collector.heldBytes), collector)
        }
        // Gone since the change was listed: the revision is in flux, try again later.
        if answer.status == 404 { throw ReplicationError.revisionMissing(id, rev) }
        try check(answer, expecting: [200])
        let body = try collector.body()
        if let listedLength, body.length != listedLength {
            throw ReplicationError.malformedAnswer(
                peer: displayName, what: "attachment \(name) of \(id) (\(body.length) bytes, \(listedLength) listed)")
        }
        return body
    }

    /// The generation of the newest revision of a `_revisions` history found in `attsSince`; 0 if none.
    static func sinceGeneration(_ revisions: JSONValue?, attsSince: Set<String>) -> Int {
        guard !attsSince.isEmpty, let start = revisions?["start"]?.intValue,
              let ids = revisions?["ids"]?.arrayValue?.compactMap(\.stringValue) else { return 0 }
        for (offset, suffix) in ids.enumerated() where attsSince.contains("\(start - offset)-\(suffix)") {
            return start - offset
        }
        return 0
    }

    /// One document and its attachment parts, the bytes read from memory and spool
    /// files as curl sends them. A refusal of the document (401, 403, 412, 413, 415) is
    /// its failure; any other error status stops the batch.
    func putMultipart(_ revision: TransferRevision) async throws -> WriteFailure? {
        let (contentType, upload) = try await MultipartUpload.body(revision, spoolingIn: spool)
        var request = RemoteRequest(method: "PUT", url: endpoint.database + "/" + RemoteEndpoint.documentPath(revision.id)
                                        + "?new_edits=false", headers: [("Content-Type", contentType)], timeout: timeout)
        request.upload = upload
        let response = try await send(request)
        if [200, 201, 202].contains(response.status) { return nil }
        let answer = try? JSONReader.parse(response.body)
        if [401, 403, 412, 413, 415].contains(response.status) {
            return WriteFailure(id: revision.id, rev: revision.rev, error: answer?["error"]?.stringValue ?? "error",
                                reason: answer?["reason"]?.stringValue ?? "")
        }
        try check(response, expecting: [201])
        return nil
    }
}
