import SetteeJSON
public import SetteeStore
import SetteeViews

/// `settee check`'s part that needs the design documents' code (issue #47, item 4): every
/// view and Mango index stored in a database compared with a rebuild from its documents
/// (`Database.verifyIndex`), and with `repair`, each one that differs dropped and built
/// again. Views run on a JavaScript service of the check's own, as a server's would;
/// without JavaScriptCore they are skipped, and the report says so.
///
/// Blocking work runs on the store's and the service's threads; call it from a command.
public enum IndexCheck {
    /// What the comparison found: lines for `settee check`'s report.
    public struct Report: Sendable {
        /// An index that differs from its rebuild (or could not be compared), one line each.
        public var problems: [String] = []
        /// Indexes rebuilt by a repair.
        public var repaired: [String] = []
        /// What could not be checked, and why (no JavaScriptCore, a view that does not compile).
        public var skipped: [String] = []
        /// With `repair`, each problem the repair did not fix (a rebuild that failed, an index
        /// that could not be compared): `settee check --repair` must not exit 0 with these.
        public var unrepaired: [String] = []
    }

    /// Compares every index `database`'s design documents define with a rebuild; with
    /// `repair`, rebuilds each one that differs.
    public static func run(_ database: Database, repair: Bool) async -> Report {
        var report = Report()
        let indexes: [(name: String, index: KeyIndex)]
        do {
            indexes = try await mangoIndexes(database) + viewIndexes(database, into: &report)
        } catch {
            report.problems.append("indexes: cannot read the design documents: \(error)")
            if repair { report.unrepaired.append("indexes: the design documents could not be read") }
            return report
        }
        for (name, index) in indexes {
            await check(name, index, database, repair: repair, into: &report)
        }
        return report
    }

    private static func check(_ name: String, _ index: KeyIndex, _ database: Database, repair: Bool,
                              into report: inout Report) async {
        let found: KeyIndexVerification
        do {
            found = try await database.verifyIndex(index)
        } catch {
            report.problems.append("index \(name): cannot compare it with a rebuild: \(error)")
            if repair { report.unrepaired.append("index \(name): not compared, so not rebuilt") }
            return
        }
        guard !found.matches else { return }
        var line = "index \(name) differs from a rebuild at update seq \(found.sequence): "
            + "\(found.differingDocuments) of \(found.documentsCompared) documents' entries"
        if !found.examples.isEmpty { line += " (" + found.examples.joined(separator: ", ") + ")" }
        if found.strayEntries > 0 { line += ", \(found.strayEntries) entries of deleted or purged documents" }
        report.problems.append(line)
        guard repair else { return }
        do {
            try await database.dropIndex(index.signature)
            try await database.refreshIndex(index)
            report.repaired.append("index \(name) rebuilt from the documents")
        } catch {
            report.problems.append("index \(name): the rebuild failed: \(error)")
            report.unrepaired.append("index \(name): the rebuild failed")
        }
    }

    /// Every Mango json index, named `_design/ddoc/name` as `_index` lists it.
    private static func mangoIndexes(_ database: Database) async throws -> [(name: String, index: KeyIndex)] {
        try await MangoIndexes.all(database).map { index in
            ((index.ddoc ?? "_all_docs") + "/" + index.name, MangoIndexes.keyIndex(index))
        }
    }

    /// Every JavaScript view, named `_design/ddoc/_view/name`, mapped by a service of the
    /// check's own; none when JavaScriptCore is absent, which `report` then says.
    private static func viewIndexes(_ database: Database,
                                    into report: inout Report) async throws -> [(name: String, index: KeyIndex)] {
        let views = try await ViewIndexes.all(database)
        guard !views.isEmpty else { return [] }
        guard JavaScriptEngine.isAvailable else {
            report.skipped.append("\(views.count) views not compared: \(JavaScriptEngine.unavailable.message)")
            return []
        }
        let service = JavaScriptService()
        var indexes: [(name: String, index: KeyIndex)] = []
        for view in views {
            let name = view.designDocument + "/_view/" + view.name
            do {
                let code = try await DesignDocuments.revision(view.designDocument, in: database).code(database)
                try await ViewIndexes.compile(view, code, service)
                indexes.append((name, ViewIndexes.keyIndex(view, code, service)))
            } catch {
                report.skipped.append("view \(name) not compared: \(error)")
            }
        }
        return indexes
    }
}
