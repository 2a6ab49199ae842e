internal import SetteeJSON
public import SetteeStore

/// Receives a `multipart/related` document upload event by event
/// (API reference /{db}/{docid} PUT, "Creating Multiple Attachments").
///
/// The first part is the document JSON. Each later part is the body of the next
/// `"follows": true` attachment in `_attachments` order; part headers are ignored,
/// as CouchDB ignores them (spec/couchdb.md "Attachments"). A part's bytes stream
/// into an `AttachmentUpload` as they arrive and must have the declared length
/// (`encoded_length` for a gzip'd part) and digest; a missing or extra part, or a
/// length or digest mismatch, is 400 and no revision is written. Finished blobs of a
/// rejected upload are unreferenced and go at the next compaction (they may be
/// shared with other attachments, so they are not deleted here).
///
/// States: json (collecting part 0, bounded by `maxJSONBytes`) → attachments (part
/// k streams to follows[k-1]) → complete (close delimiter seen).
public final class MultipartDocumentUpload {
    private let database: Database
    private let maxJSONBytes: Int
    private let parse: ([UInt8]) throws -> DocumentParser.Parsed
    private var partIndex = 0
    private var json: [UInt8] = []
    private var current: AttachmentUpload?
    public private(set) var parsed: DocumentParser.Parsed?
    public private(set) var entries: [AttachmentParser.Entry] = []
    private var follows: [AttachmentParser.Follows] = []
    public private(set) var stored: [String: StoredAttachment] = [:]
    public private(set) var isComplete = false

    public init(database: Database, maxJSONBytes: Int, parse: @escaping ([UInt8]) throws -> DocumentParser.Parsed) {
        self.database = database
        self.maxJSONBytes = maxJSONBytes
        self.parse = parse
    }

    public func handle(_ event: MultipartReader.Event) async throws {
        switch event {
        case .headers:
            if partIndex > 0 { try await beginAttachment() }
        case .body(let bytes):
            if partIndex == 0 {
                guard json.count + bytes.count <= maxJSONBytes else {
                    throw DocumentError.tooLarge("Document exceeds max_document_size")
                }
                json += bytes
            } else {
                try await current?.write(bytes)
            }
        case .partEnd:
            try await endPart()
            partIndex += 1
        case .end:
            guard parsed != nil, partIndex - 1 == follows.count else {
                // A `follows` attachment whose part never came is short, as CouchDB 3.4.3 words it
                // (couch_att: "attachment shorter than expected"; attachments_multipart_test.exs).
                throw DocumentError.badRequest(parsed == nil ? "Missing attachment data in multipart request"
                                                             : "attachment shorter than expected")
            }
            isComplete = true
        }
    }

    /// Drops the attachment being received (the client went away or sent garbage).
    public func abort() async {
        await current?.abort()
        current = nil
    }

    private func beginAttachment() async throws {
        guard parsed != nil, partIndex - 1 < follows.count else {
            throw DocumentError.badRequest("Unexpected extra part in multipart request")
        }
        let follow = follows[partIndex - 1]
        current = try await database.makeAttachmentUpload(
            contentType: follow.contentType,
            alreadyGzipped: follow.encoding == "gzip" ? (follow.length ?? 0) : nil)
    }

    private func endPart() async throws {
        if partIndex == 0 {
            let document = try parse(json)
            entries = try AttachmentParser.entries(document.attachments)
            follows = entries.compactMap { if case .follows(let f) = $0 { f } else { nil } }
            parsed = document
            json = []
            return
        }
        guard let upload = current else { return }
        let follow = follows[partIndex - 1]
        current = nil
        do {
            stored[follow.name] = try await upload.finish(name: follow.name, contentType: follow.contentType,
                                                          expectedDigest: follow.digest,
                                                          expectedLength: follow.partLength)
        } catch {
            await upload.abort()
            throw error
        }
    }
}
