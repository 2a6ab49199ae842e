/*
 `settee backup DB|--all DIR` and `settee restore DIR DB|--all` (issue #44, item 4): an
 online, consistent copy of databases while a server goes on writing (`DatabaseBackup`),
 checked once taken (`DatabaseCheck`), and the copy brought back into a data directory no
 server has open.
*/
internal import ArgumentParser
internal import FoundationEssentials
internal import Logging
internal import SetteeConfig
internal import SetteeStore

struct Backup: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy databases into a directory while the server runs (SQLite's backup API, attachments included).",
        discussion: "Each copy is checked once taken (`settee check`). Restore it with `settee restore`.")

    @Argument(help: "The database to back up (leave out with --all).")
    var database: String?

    @Argument(help: "The backup directory (made if needed); it is laid out as a data directory.")
    var directory: String

    @Flag(help: "Back up every database of the data directory.")
    var all = false

    @OptionGroup var location: DataDirectoryOptions

    func validate() throws {
        if all == (database != nil) { throw ValidationError("name one database, or give --all") }
    }

    func run() throws {
        // No lock: a backup is taken while a server goes on writing (SQLite's online backup API).
        let (data, _, _) = try location.open(label: "settee.backup")
        let copies = try DatabaseDirectory(configuration: StoreConfiguration(path: directory), logger: Logger(label: "settee.backup"))
        var isClean = true
        for name in try database.map({ [$0] }) ?? data.names() {
            do {
                let sequence = try DatabaseBackup.backUp(name, in: data, to: directory)
                let check = try DatabaseCheck.run(name, in: copies, repair: false)
                if check.isSound {
                    print("\(name): backed up at update seq \(sequence)")
                } else {
                    isClean = false
                    print(check.problems.map { "\(name): backup problem: \($0)" }.joined(separator: "\n"))
                }
            } catch StoreError.databaseExists {
                throw ValidationError("\(directory) already holds a backup of \(name)")
            }
        }
        if !isClean { throw ExitCode(1) }
    }
}
