internal import SetteeJSON

extension RemotePeer {
    /// `GET /{db}/{docid}?open_revs=[rev]&latest=true&revs=true&atts_since=[..]` with
    /// `Accept: multipart/mixed`, per revision, as CouchDB's replicator asks it: the
    /// attachments come raw in the same answer (gzip'd ones still encoded, decoded
    /// here). A server that answers JSON instead is read as JSON.
    func openRevs(_ requests: [RevisionRequest]) async throws -> [TransferRevision] {
        var found: [TransferRevision] = []
        for request in requests {
            var query = "revs=true&latest=true&open_revs="
                + RemoteEndpoint.encode(String(decoding: JSONWriter.serialize([.string(request.rev)]), as: UTF8.self))
            if !request.attsSince.isEmpty {
                query += "&atts_since=" + RemoteEndpoint.encode(String(decoding: JSONWriter.serialize(
                    .array(request.attsSince.map { .string($0) })), as: UTF8.self))
            }
            var get = RemoteRequest(method: "GET", url: endpoint.database + "/" + RemoteEndpoint.documentPath(request.id)
                + "?" + query, timeout: timeout)
            get.headers.append(("Accept", "multipart/mixed"))
            let answer = try await send(get)
            try check(answer, expecting: [200])
            let type = answer.header("Content-Type") ?? ""
            guard type.lowercased().hasPrefix("multipart/") else {
                for entry in try parse(answer).arrayValue ?? [] {
                    guard let doc = entry["ok"]?.objectValue else { throw ReplicationError.revisionMissing(request.id, request.rev) }
                    found.append(try await withAttachments(doc, attsSince: request.attsSince))
                }
                continue
            }
            do {
                for revision in try OpenRevsReply.parse(answer.body, contentType: type, maxAttachmentBytes: Int(Int32.max)) {
                    found.append(Self.transfer(revision))
                }
            } catch is OpenRevsReply.Missing {
                throw ReplicationError.revisionMissing(request.id, request.rev)
            } catch let malformed as OpenRevsReply.Malformed {
                throw ReplicationError.malformedAnswer(peer: displayName, what: "open_revs \(malformed.what)")
            } catch {
                throw ReplicationError.malformedAnswer(peer: displayName, what: "open_revs attachment (\(error))")
            }
        }
        return found
    }

    /// A revision from `open_revs` as the target takes it: each following attachment's
    /// entry describes the identity bytes that travel (its digest is the target's to compute).
    static func transfer(_ found: OpenRevsReply.Found) -> TransferRevision {
        guard !found.attachments.isEmpty, var entries = found.json["_attachments"]?.objectValue else {
            return TransferRevision(json: found.json)
        }
        for (name, bytes) in found.attachments {
            let entry = entries[name]
            entries[name] = TransferRevision.followsEntry(
                contentType: entry?["content_type"]?.stringValue ?? "application/octet-stream",
                revpos: entry?["revpos"]?.intValue ?? 0, length: Int64(bytes.count))
        }
        var json = found.json
        json["_attachments"] = .object(entries)
        // This older protocol's answer arrives whole (servers without `_bulk_get`); the
        // bytes are already in memory.
        return TransferRevision(json: json, attachments: found.attachments.mapValues { AttachmentBody($0) })
    }
}
