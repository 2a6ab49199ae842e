internal import FoundationEssentials

/// `settee check`: every attachment a revision names, read whole against its digest.
extension DatabaseCheck {
    static func checkBlobs(_ db: Connection, path: String, repair: Bool, into report: inout DatabaseCheckReport) {
        let blobs: BlobStore
        do {
            blobs = try BlobStore(directory: BlobStore.directory(forDatabaseFile: path))
        } catch {
            report.problems.append("attachments: cannot open the blob directory: \(error)")
            return
        }
        defer { blobs.close() }
        checkSmallBlobFile(in: blobs.directory, into: &report)
        var checked = Set<BlobKey>()
        for (document, name, key) in referencedAttachments(db, into: &report) {
            guard let problem = problem(with: key, in: blobs, alreadyChecked: &checked) else { continue }
            let line = "document \(document) attachment \(name) (\(key.couchDigest)): \(problem)"
            report.problems.append(line)
            if repair { report.lost.append(line + "; its bytes cannot be rebuilt, replicate it back") }
        }
    }

    /// SQLite's checks of `small.sqlite`, when there is one (a damaged page there can
    /// lose rows no attachment read has asked for yet).
    private static func checkSmallBlobFile(in directory: String, into report: inout DatabaseCheckReport) {
        let path = directory + "/" + SmallBlobFile.fileName
        guard FileManager.default.fileExists(atPath: path) else { return }
        do {
            let db = try Connection(path: path)
            defer { db.close() }
            report.problems += integrityProblems(db).map { "attachments file \(SmallBlobFile.fileName): " + $0 }
        } catch {
            report.problems.append("attachments file \(SmallBlobFile.fileName): cannot open it: \(error)")
        }
    }

    /// (document id, attachment name, blob key) of every attachment row.
    private static func referencedAttachments(_ db: Connection,
                                              into report: inout DatabaseCheckReport) -> [(String, String, BlobKey)] {
        var rows: [(String, String, BlobKey)] = []
        do {
            try db.query("""
                SELECT docs.docid, attachments.name, attachments.digest FROM attachments
                JOIN revs ON revs.sequence = attachments.sequence JOIN docs ON docs.doc_id = revs.doc_id
                """) { row in
                if let key = row.blob(2).flatMap(BlobKey.init(md5:)) {
                    rows.append((row.text(0) ?? "?", row.text(1) ?? "?", key))
                }
            }
        } catch {
            report.problems.append("attachments: cannot list them: \(error)")
        }
        return rows
    }

    /// What is wrong with blob `key`, or nil when it reads back whole and matches.
    private static func problem(with key: BlobKey, in blobs: BlobStore, alreadyChecked: inout Set<BlobKey>) -> String? {
        if alreadyChecked.contains(key) { return nil }
        do {
            let reader = try blobs.open(key)
            defer { reader.close() }
            while try reader.read(maxLength: 256 * 1024) != nil {}
            alreadyChecked.insert(key)
            return nil
        } catch StoreError.attachmentDamaged(_, let detail) {
            return "damaged, " + detail
        } catch StoreError.attachmentNotFound {
            return "missing from the blob store"
        } catch {
            return "unreadable: \(error)"
        }
    }
}
