import SetteeViews
internal import Synchronization

/// Views as parsed from their design documents, kept by the design document's id,
/// digest and the view's name: a point query finds its view here rather than reading
/// it out of the body and hashing its signature again on every request.
enum ViewDefinitions {
    /// Views kept at most; past it the cache starts again (design documents change rarely).
    static let capacity = 512

    /// The view `name` of `design`, nil when it has none (`ViewDefinition.named`).
    static func named(_ name: String, in design: DesignDocuments.Revision) -> ViewDefinition? {
        let key = design.id + "\u{0}" + design.digest + "\u{0}" + name
        if let kept = kept.withLock({ $0[key] }) { return kept }
        guard let view = ViewDefinition.named(name, designDocumentID: design.id, body: design.body) else { return nil }
        kept.withLock { kept in
            if kept.count >= capacity { kept.removeAll() }
            kept[key] = view
        }
        return view
    }

    private static let kept = Mutex<[String: ViewDefinition]>([:])
}
