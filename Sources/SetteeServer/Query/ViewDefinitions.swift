import SetteeViews
internal import Synchronization

/// Views as parsed from their design documents, kept with the design document's
/// revision as read (`DesignDocuments.Revision`, itself kept with its database): a point
/// query finds its view there rather than reading it out of the body and hashing its
/// signature again on every request.
enum ViewDefinitions {
    /// The view `name` of `design`, nil when it has none (`ViewDefinition.named`).
    static func named(_ name: String, in design: DesignDocuments.Revision) -> ViewDefinition? {
        if let kept = design.views.kept.withLock({ $0[name] }) { return kept }
        guard let view = ViewDefinition.named(name, designDocumentID: design.id, body: design.body) else { return nil }
        design.views.kept.withLock { $0[name] = view }
        return view
    }
}

/// The views of one design document revision, parsed once each.
final class ParsedViews: Sendable {
    let kept = Mutex<[String: ViewDefinition]>([:])
}
