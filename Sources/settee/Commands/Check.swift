/*
 `settee check [DB] [--repair]`: checks one database of the data directory (or every
 one) while no server has it open (issue #47, item 4): SQLite's integrity check of its file and
 indexes, its update sequence against the last committed one (a WAL that lost
 commits), and every attachment's bytes against their digest. Prints one line per
 problem and exits 1 when there is any. Then every view and Mango index against a rebuild
 from the documents (`IndexCheck`). --repair rebuilds the indexes, accepts the sequence the
 file has, rebuilds the view and Mango indexes that differ, and prints what is lost for good.
*/
internal import ArgumentParser
internal import FoundationEssentials
internal import SetteeServer
internal import SetteeStore

struct Check: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a database's file, update sequence and attachments (--repair: rebuild what can be).",
        discussion: "Run it on a data directory no running server has open.")

    @Argument(help: "The database to check (every database of the data directory when left out).")
    var database: String?

    @Flag(help: "Rebuild the indexes, accept the update sequence the file has, and report what is lost.")
    var repair = false

    @OptionGroup var location: DataDirectoryOptions

    func run() async throws {
        // The lock, with or without --repair: beside a running server, the update sequence it is
        // committing races the check's reading of it, and a check's own opening of the
        // database for its indexes would be a second writer. A live server's databases are
        // checked through `settee backup`, which checks the copy it takes.
        let (directory, path, lock) = try location.open(label: "settee.check", locking: true)
        defer { withExtendedLifetime(lock) {} }
        defer { directory.closeAll() }
        var isClean = true
        for name in try database.map { [$0] } ?? directory.names() {
            var report: DatabaseCheckReport
            do {
                report = try DatabaseCheck.run(name, in: directory, repair: repair)
            } catch StoreError.databaseNotFound {
                throw ValidationError("no database \(name) in \(path)")
            }
            let (skipped, unrepaired) = await checkIndexes(name, in: directory, into: &report)
            print(skipped.map { "\(name): not checked: \($0)\n" }.joined() + Self.text(report, repairing: repair)
                  + unrepaired.map { "\(name): not repaired: \($0)\n" }.joined(), terminator: "")
            // Exit 1 while a problem is left: any without --repair; with it, anything lost or
            // a repair that failed.
            if !unrepaired.isEmpty || !report.isSound && (!repair || !report.lost.isEmpty) { isClean = false }
        }
        if !isClean { throw ExitCode(1) }
    }

    /// Compares the database's view and Mango indexes with a rebuild (`IndexCheck`), once its
    /// file can be read; returns what could not be compared, and what a repair left broken.
    private func checkIndexes(_ name: String, in directory: DatabaseDirectory,
                              into report: inout DatabaseCheckReport) async -> (skipped: [String], unrepaired: [String]) {
        if !repair, report.problems.contains(where: { $0.hasPrefix("database file:") }) {
            return (["view and Mango indexes (the file itself is damaged)"], [])
        }
        let opened: Database?
        do { opened = try directory.database(named: name) } catch {
            // A problem, not a skip: a server could not open it either (a file a newer Settee
            // wrote, say), so the check must not end "ok" with exit status 0.
            let reason = (error as? StoreError)?.couchAnswer.reason ?? "\(error)"
            report.problems.append("cannot open the database: \(reason)")
            return (["view and Mango indexes (the database cannot be opened)"], repair ? ["cannot open the database: \(reason)"] : [])
        }
        guard let database = opened else { return ([], []) }
        let found = await IndexCheck.run(database, repair: repair)
        report.problems += found.problems
        report.repaired += found.repaired
        return (found.skipped, found.unrepaired)
    }

    /// The report as lines: `ok`, or each problem, then what was repaired and what is lost.
    static func text(_ report: DatabaseCheckReport, repairing: Bool) -> String {
        guard !report.isSound else { return "\(report.database): ok\n" }
        var lines = report.problems.map { "\(report.database): problem: \($0)" }
        lines += report.repaired.map { "\(report.database): repaired: \($0)" }
        lines += report.lost.map { "\(report.database): lost: \($0)" }
        if !repairing { lines.append("\(report.database): run `settee check \(report.database) --repair` to rebuild what can be") }
        return lines.joined(separator: "\n") + "\n"
    }
}
