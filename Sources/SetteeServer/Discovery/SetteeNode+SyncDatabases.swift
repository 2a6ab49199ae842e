import Logging
import SetteeStore

/*
 The `[discovery] sync` databases are made before the server publishes itself, so that its
 first DNS-SD record already lists them. A database created just after the start changed the
 TXT record while avahi still probed the service name: avahi then took its own looped-back
 probe, which carried the record from before the change, for another host's ("Received
 conflicting probe ... Local host lost") and renamed the service ("Name #2"). The first name
 stayed in every peer's cache (its PTR record lives 75 minutes), browsable but answering
 nothing, and each peer resolved it again and again: 3-4 such names in a room of 20 raised
 the idle room's CPU by half (bench/RESULTS.md, "An idle room that costs more"). A device
 that syncs a database would make it on its first pull from a peer anyway (`create_target`).
 */
extension SetteeNode {
    /// Makes each missing `sync` database; one that cannot be made is logged, not fatal.
    func createSyncDatabases() async {
        guard let discovery else { return }
        for name in configuration.discovery.sync {
            do {
                guard try directory.database(named: name) == nil else { continue }
                _ = try await DatabaseHandlers.create(name, directory: directory, configuration: configuration)
            } catch {
                discovery.logger.warning("discovery: cannot create the sync database \(name): \(error)")
            }
        }
    }
}
