internal import SetteeJSON
public import SetteeStore

/// One revision as CouchDB's JSON: the stored body with `_id`, `_rev`, and the
/// meta members `DocumentOptions` ask for. The server answers reads with it and
/// the replicator's local peer sends revisions in it.
public enum RevisionJSON {
    /// `render(id:tree:...)` for a document read with its tree.
    public static func render(_ document: StoredDocument, _ revision: StoredRevision, options: DocumentOptions,
                       forms: [String: AttachmentJSON.Form] = [:]) -> DocumentWriter {
        render(id: document.id, tree: document.tree, revision, options: options, forms: forms)
    }

    /// The JSON of one revision with the meta fields `options` ask for.
    /// Attachments not in `forms` are stubs. `rev` is the revision id as text when
    /// the caller has formatted it already (for the ETag). `tree` may be nil only
    /// when `options` need none (`DocumentOptions.needsTree`).
    public static func render(id: String, tree: RevisionTree?, _ revision: StoredRevision, rev: String? = nil,
                       options: DocumentOptions, forms: [String: AttachmentJSON.Form] = [:]) -> DocumentWriter {
        precondition(tree != nil || !options.needsTree, "options that need the revision tree were read without it")
        var writer = DocumentWriter(id: id, rev: rev ?? revision.rev.description,
                                    body: revision.body ?? Array("{}".utf8))
        writer.isDeleted = revision.isDeleted
        let tree = tree ?? RevisionTree()
        if options.revs {
            let history = tree.history(of: revision.rev).prefix(options.revsLimit)
            writer.append("_revisions", ["start": .int(revision.rev.generation),
                                         "ids": .array(history.map { .string($0.suffix) })])
        }
        if options.revsInfo {
            let info = tree.history(of: revision.rev).map { rev -> JSONValue in
                let node = tree.node(rev)
                let status = node.map { $0.isDeleted ? "deleted" : ($0.hasBody ? "available" : "missing") } ?? "missing"
                return ["rev": .string(rev.description), "status": .string(status)]
            }
            writer.append("_revs_info", .array(info))
        }
        if options.conflicts, !tree.conflicts.isEmpty {
            writer.append("_conflicts", .array(tree.conflicts.map { .string($0.description) }))
        }
        if options.deletedConflicts, !tree.deletedConflicts.isEmpty {
            writer.append("_deleted_conflicts", .array(tree.deletedConflicts.map { .string($0.description) }))
        }
        if options.localSeq { writer.append("_local_seq", .number(JSONNumber(revision.sequence))) }
        if !revision.attachments.isEmpty {
            writer.append("_attachments", AttachmentJSON.object(revision.attachments, forms: forms,
                                                                showEncoding: options.attEncodingInfo))
        }
        return writer
    }
}
