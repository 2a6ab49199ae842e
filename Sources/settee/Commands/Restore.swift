/*
 `settee restore DIR DB|--all`: a backup (`settee backup`) copied back into a data
 directory no server has open (`DatabaseBackup.restore`), never over a database there.
*/
internal import ArgumentParser
internal import FoundationEssentials
internal import Logging
internal import SetteeConfig
internal import SetteeStore

struct Restore: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy databases from a backup directory into the data directory.",
        discussion: "Run it on a data directory no running server has open; a database that exists there is not replaced.")

    @Argument(help: "The backup directory (`settee backup`'s).")
    var directory: String

    @Argument(help: "The database to restore (leave out with --all).")
    var database: String?

    @Flag(help: "Restore every database of the backup.")
    var all = false

    @OptionGroup var location: DataDirectoryOptions

    func validate() throws {
        if all == (database != nil) { throw ValidationError("name one database, or give --all") }
    }

    func run() throws {
        let (data, path, lock) = try location.open(label: "settee.restore", locking: true)
        defer { withExtendedLifetime(lock) {} }
        let copies = try DatabaseDirectory(configuration: StoreConfiguration(path: directory), logger: Logger(label: "settee.restore"))
        for name in try database.map({ [$0] }) ?? copies.names() {
            do {
                try DatabaseBackup.restore(name, from: directory, into: data)
                print("\(name): restored into \(path)")
            } catch StoreError.databaseExists {
                throw ValidationError("\(name) exists in \(path): delete it first")
            } catch StoreError.databaseNotFound {
                throw ValidationError("no backup of \(name) in \(directory)")
            }
        }
    }
}
