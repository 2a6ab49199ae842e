/*
 `settee check [DB] [--repair]`: checks one database of the data directory (or every
 one) while no server has it open (issue #47, item 4): SQLite's integrity check of its file and
 indexes, its update sequence against the last committed one (a WAL that lost
 commits), and every attachment's bytes against their digest. Prints one line per
 problem and exits 1 when there is any. --repair rebuilds the indexes, accepts the
 sequence the file has, and prints what is lost for good.
*/
internal import ArgumentParser
internal import FoundationEssentials
internal import SetteeServer
internal import SetteeStore

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a database's file, update sequence and attachments (--repair: rebuild what can be).",
        discussion: "Run it on a data directory no running server has open.")

    @Argument(help: "The database to check (every database of the data directory when left out).")
    var database: String?

    @Flag(help: "Rebuild the indexes, accept the update sequence the file has, and report what is lost.")
    var repair = false

    @OptionGroup var location: DataDirectoryOptions

    func run() throws {
        let (directory, path) = try location.open(label: "settee.check")
        var isClean = true
        for name in try database.map { [$0] } ?? directory.names() {
            let report: DatabaseCheckReport
            do {
                report = try DatabaseCheck.run(name, in: directory, repair: repair)
            } catch StoreError.databaseNotFound {
                throw ValidationError("no database \(name) in \(path)")
            }
            print(Self.text(report, repairing: repair), terminator: "")
            // Exit 1 while a problem is left, or anything was lost.
            if !report.isSound && (!repair || !report.lost.isEmpty) { isClean = false }
        }
        if !isClean { throw ExitCode(1) }
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
