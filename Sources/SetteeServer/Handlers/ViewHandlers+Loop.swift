import SetteeStore
import SetteeViews

extension ViewHandlers {
    /// Whether the design document a view request names is parsed and kept since the
    /// database's last write (`DesignDocuments.revision` reads and parses it otherwise).
    static func isDesignDocumentKept(_ context: RequestContext, _ database: Database) -> Bool {
        guard let ddocName = context.parameters[.ddoc] else { return false }
        return DesignDocuments.isKept("_design/" + ddocName, in: database)
    }

    /// Whether `query` of `requested` may go on on the event loop's thread (`LightViewQuery`).
    static func staysOnLoop(_ query: ViewQuery, _ requested: RequestedView) -> Bool {
        LightViewQuery.staysOnLoop(query, viewHasReduce: requested.view.reduce != nil,
                                   isCompiled: ViewIndexes.isCompiled(requested.view, requested.code, requested.service))
    }
}
