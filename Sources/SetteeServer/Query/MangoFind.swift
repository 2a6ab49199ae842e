import SetteeDocuments
import SetteeJSON
import SetteeStore
internal import Synchronization

/// Runs a `_find`: reads the chosen index a page at a time, checks every document
/// against the whole selector (an index only narrows the scan), applies `skip`
/// and `limit`, and notes where it stopped for the bookmark.
struct MangoFind {
    let request: FindRequest
    let plan: QueryPlan
    let database: Database

    struct Result {
        /// Each document as its JSON bytes.
        var docs: [[UInt8]] = []
        var bookmark: String
        var keysExamined = 0
        var docsExamined = 0
        var warnings: [String]
        var milliseconds = 0.0
    }

    /// A bookmark is this byte and the last key returned, base64url: the byte tells
    /// an `_all_docs` position (raw id) from an index key, so one is not read as the other.
    var bookmarkTag: UInt8 { plan.index.isSpecial ? 0x61 : 0x6B }

    /// Pages grow from the number of rows wanted up to this many rows.
    static let largestPage = 1_000

    func run() async throws -> Result {
        let started = ContinuousClock.now
        var result = Result(bookmark: request.bookmark ?? "nil", warnings: plan.warnings)
        var after: [UInt8]?
        if let bookmark = request.bookmark {
            guard let bytes = CookieSession.decodeBase64URL(bookmark), bytes.first == bookmarkTag else {
                throw MangoError.invalidBookmark(bookmark)
            }
            after = Array(bytes.dropFirst())
        }
        let keyIndex = plan.index.isSpecial ? nil : MangoIndexes.keyIndex(plan.index)
        if let keyIndex, request.update, !request.stale {
            do { try await database.refreshIndex(keyIndex) } catch {
                guard let failure = database.indexFailure(keyIndex.signature) else { throw error }
                throw failure.couchError(index: (plan.index.ddoc ?? "") + "/" + plan.index.name)
            }
        }
        var toSkip = request.skip
        var pageSize = min(Self.largestPage, max(16, request.limit + request.skip + 1))
        var lastKey: [UInt8]?
        scan: while !plan.isEmpty && result.docs.count < request.limit {
            let rows = try await database.indexPage(keyIndex, range: plan.range, descending: plan.isDescending,
                                                    after: after, limit: pageSize)
            var matched: [(row: KeyIndexRow, document: JSONValue)] = []
            for row in rows {
                result.keysExamined += 1
                after = row.key
                guard let body = try? JSONReader.parse(row.body) else { continue }
                result.docsExamined += 1
                let document = MangoIndex.withMeta(id: row.id, rev: row.rev.description, body: body)
                guard request.selector.matches(document) else { continue }
                if toSkip > 0 {
                    toSkip -= 1
                    continue
                }
                matched.append((row, document))
                if result.docs.count + matched.count >= request.limit { break }
            }
            // One read of the page's attachment stubs, not one a document.
            let stubs = wantsStubs ? try await database.winnerAttachments(matched.map { ($0.row.id, $0.row.rev) }) : [:]
            for (row, document) in matched {
                result.docs.append(try await render(row, document, attachments: stubs[row.id] ?? []))
                lastKey = row.key
            }
            if result.docs.count >= request.limit { break scan }
            if rows.count < pageSize { break }
            pageSize = min(Self.largestPage, pageSize * 4)
        }
        if let lastKey { result.bookmark = CookieSession.base64URL([bookmarkTag] + lastKey) }
        if Self.scansTooMuch(examined: result.docsExamined, returned: result.docs.count) {
            result.warnings.append("The number of documents examined is high in proportion to the number of results "
                                   + "returned. Consider adding a more specific index to improve this.")
        }
        let elapsed = ContinuousClock.now - started
        result.milliseconds = Double(elapsed.components.seconds) * 1_000
            + Double(elapsed.components.attoseconds) / 1e15
        return result
    }

    /// Whether documents carry their `_attachments` stubs, as CouchDB returns them (all
    /// of them, or when a field of `fields` names them).
    private var wantsStubs: Bool {
        request.fields.map { $0.contains { $0 == "_attachments" || $0.hasPrefix("_attachments.") } } ?? true
    }

    /// mango_cursor:index_scan_warning/1 with the default threshold of 10.
    static func scansTooMuch(examined: Int, returned: Int) -> Bool {
        let ratio = returned == 0 ? Double(examined) : Double(examined) / Double(returned)
        return ratio > 10
    }

    /// The document as `_find` returns it: whole (spliced from its stored bytes), or
    /// reduced to `fields`, with `_conflicts` when asked for.
    private func render(_ row: KeyIndexRow, _ document: JSONValue, attachments: [StoredAttachment]) async throws -> [UInt8] {
        var conflicts: [RevisionID] = []
        if request.conflicts {
            conflicts = try await database.document(id: row.id, revisions: .none)?.tree.conflicts ?? []
        }
        let stubs = AttachmentJSON.object(attachments, forms: [:], showEncoding: false)
        if let fields = request.fields {
            var document = document
            if !attachments.isEmpty, case .object(var object) = document {
                object["_attachments"] = stubs
                document = .object(object)
            }
            var projected = FieldProjection.project(document, fields: fields)
            if !conflicts.isEmpty, case .object(var object) = projected {
                object["_conflicts"] = .array(conflicts.map { .string($0.description) })
                projected = .object(object)
            }
            return JSONWriter.serialize(projected)
        }
        var writer = DocumentWriter(id: row.id, rev: row.rev.description, body: row.body)
        if !conflicts.isEmpty { writer.append("_conflicts", .array(conflicts.map { .string($0.description) })) }
        if !attachments.isEmpty { writer.append("_attachments", stubs) }
        return writer.serialize()
    }
}
