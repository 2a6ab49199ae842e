import Logging
import SetteeDiscovery
import SetteeReplicator
import SetteeStore
import Synchronization

/*
 Starting and stopping discovery. `settee serve` starts it once for all its ports; a program
 embedding Settee starts a listener at a time (`Listener`), each adding its port's service
 to one browser and one state, and stopping one withdraws its service only: discovery
 stops with the last (two listeners used to start two browsers, and stopping either
 stopped both).
 */
extension NodeDiscovery {
    /// Publishes the node for `ports` (and `tlsPorts`); the first call also starts browsing
    /// and following peers. A later call (a program's second listener) adds its ports'
    /// services to the same browser and state rather than starting discovery a second time.
    func start(ports: [Int], tlsPorts: [Int], tlsFingerprint: String?) {
        lifecycle.withLock { _ in
            if let tlsFingerprint { self.tlsFingerprint = tlsFingerprint }
            let discovery = self.discovery ?? Discovery(logger: logger)
            let first = self.discovery == nil
            self.discovery = discovery
            if first {
                let advertised = configuration.advertised(among: (try? directory.names()) ?? [])
                state.withLock { $0.advertised = advertised }
            }
            let advertised = state.withLock { $0.advertised }
            var publishers: [ServicePublisher] = []
            for port in Set(ports).sorted() {
                publishers.append(discovery.publish(name: instanceName, type: configuration.type, port: port,
                                                    record: record(advertised, tls: false)))
            }
            for port in Set(tlsPorts).sorted() {
                publishers.append(discovery.publish(name: instanceName + " (TLS)", type: configuration.type, port: port,
                                                    record: record(advertised, tls: true)))
            }
            state.withLock { $0.publishers += publishers }
            guard first else { return }
            watcher = Task { await self.followDatabases() }
            peerWatch = Task { await self.watchPeers() }
            browser = discovery.browse(type: configuration.type) { [weak self] event in self?.handle(event) }
        }
    }

    /// Withdraws the services of `ports` (a listener stopped); with none left, stops discovery.
    func withdraw(ports: [Int]) {
        let (withdrawn, remaining) = state.withLock { s -> ([ServicePublisher], Int) in
            let withdrawn = s.publishers.filter { ports.contains($0.port) }
            s.publishers.removeAll { ports.contains($0.port) }
            return (withdrawn, s.publishers.count)
        }
        withdrawn.forEach { $0.withdraw() }
        if remaining == 0 { stop() }
    }

    func stop() {
        lifecycle.withLock { _ in
            watcher?.cancel()
            peerWatch?.cancel()
            browser?.stop()
            let (publishers, jobs) = state.withLock { s in (s.publishers, s.syncing.values.flatMap(\.jobs)) }
            publishers.forEach { $0.withdraw() }
            for id in jobs { _ = replications.cancel(id: id) }
            discovery?.stop()
            (discovery, browser, watcher, peerWatch) = (nil, nil, nil, nil)
            // A later start meets every peer again; only the departed are remembered.
            state.withLock { s in
                let departed = s.departed
                s = State()
                s.departed = departed
            }
        }
    }
}
