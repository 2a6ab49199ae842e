internal import Synchronization
internal import Logging
internal import SetteeReplicator
internal import SetteeStore

/// Replication of a local ``Database`` with a peer: a CouchDB-compatible database at a
/// URL (Apache CouchDB, another Settee, PouchDB's server) or another local database.
/// It runs CouchDB's replication protocol, the code of `settee replicate` and
/// `POST /_replicate`, checkpointing on both sides.
///
///     let sync = Replicator(notes, peer: .url("https://box.local:6984/notes#fp=AB:CD:…"),
///                           direction: .pushAndPull, continuous: true)
///     sync.start()
///     for await status in sync.statusUpdates() { print(status) }
public final class Replicator: Sendable {
    /// The other side.
    public enum Peer: Sendable {
        /// A database URL (`http(s)://user:password@host:port/db`). With HTTPS, `pin`
        /// (a SHA-256 certificate fingerprint, hex, colons optional) is the one
        /// certificate trusted; a pairing URL's `#fp=` fragment (`settee pair`) pins too.
        case url(String, pin: String? = nil)
        /// Another local database (of this or another open ``DataDirectory``).
        case database(Database)
    }

    public enum Direction: Sendable, Hashable {
        /// Local changes to the peer.
        case push
        /// The peer's changes to the local database.
        case pull
        case pushAndPull
    }

    public let database: Database
    public let peer: Peer
    public let direction: Direction
    public let isContinuous: Bool
    /// Whether a missing target database is created (CouchDB's `create_target`).
    public let createsTarget: Bool
    private let state = Mutex(RunState())

    private struct RunState {
        var jobs: [Task<Void, Never>] = []
        var statuses: [ReplicatorStatus] = []
        var started = false
        var subscribers: [Int: AsyncStream<ReplicatorStatus>.Continuation] = [:]
        var nextSubscriber = 0
        var current: ReplicatorStatus { statuses.isEmpty ? .connecting : statuses.dropFirst().reduce(statuses[0], ReplicatorStatus.combined) }
    }

    /// - Parameters:
    ///   - database: the local database.
    ///   - peer: the other side.
    ///   - direction: which way changes go.
    ///   - continuous: follow new changes until ``stop()``, instead of stopping once caught up.
    ///   - createTarget: create the target database when it does not exist.
    public init(_ database: Database, peer: Peer, direction: Direction, continuous: Bool = false,
                createTarget: Bool = false) {
        self.database = database
        self.createsTarget = createTarget
        self.peer = peer
        self.direction = direction
        self.isContinuous = continuous
    }

    /// The status now.
    public var status: ReplicatorStatus { state.withLock { $0.current } }

    /// Starts replicating (once; later calls do nothing). Writes to the local database
    /// are made as its directory's ``Identity``.
    public func start() {
        let directions: [(push: Bool, index: Int)] = switch direction {
        case .push: [(true, 0)]
        case .pull: [(false, 0)]
        case .pushAndPull: [(true, 0), (false, 1)]
        }
        let begin = state.withLock { state -> Bool in
            guard !state.started else { return false }
            state.started = true
            state.statuses = Array(repeating: .connecting, count: directions.count)
            return true
        }
        guard begin else { return }
        let identity = database.data.options.identity
        let jobs = directions.map { direction in
            Task { await identity.performing { await self.run(push: direction.push, slot: direction.index) } }
        }
        state.withLock { $0.jobs = jobs }
    }

    /// Stops replicating and waits until both directions have stopped.
    public func stop() async {
        let jobs = state.withLock { $0.jobs }
        for job in jobs { job.cancel() }
        for job in jobs { await job.value }
    }

    /// Waits until the replicator stops (a one-shot one once caught up) and returns its last status.
    public func finished() async -> ReplicatorStatus {
        let jobs = state.withLock { $0.jobs }
        for job in jobs { await job.value }
        return status
    }

    /// The status now, then each change, until stopped.
    public func statusUpdates() -> ReplicatorStatusUpdates {
        let (stream, continuation) = AsyncStream.makeStream(of: ReplicatorStatus.self, bufferingPolicy: .bufferingNewest(16))
        let (id, current) = state.withLock { state in
            defer { state.nextSubscriber += 1 }
            state.subscribers[state.nextSubscriber] = continuation
            return (state.nextSubscriber, state.current)
        }
        continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) } }
        continuation.yield(current)
        if current.isStopped { continuation.finish() }
        return ReplicatorStatusUpdates(stream: stream)
    }

    /// Records `status` for direction `slot`, and tells subscribers when the combined
    /// status changed (outside the lock: finishing a stream runs its termination handler).
    private func publish(_ status: ReplicatorStatus, slot: Int) {
        let (changed, subscribers) = state.withLock { state in
            let before = state.current
            state.statuses[slot] = status
            return (state.current == before ? nil : state.current, Array(state.subscribers.values))
        }
        guard let changed else { return }
        for continuation in subscribers {
            continuation.yield(changed)
            if changed.isStopped { continuation.finish() }
        }
    }

    /// One direction: the replication job, its status sampled as it runs.
    private func run(push: Bool, slot: Int) async {
        let replication: Replication
        do {
            replication = try makeReplication(push: push)
        } catch {
            publish(.stopped(ReplicationProgress(), error: SetteeError.from(error)), slot: slot)
            return
        }
        let sampler = Task {
            while !Task.isCancelled {
                self.publish(Self.status(of: replication.progress, continuous: self.isContinuous), slot: slot)
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        var failure: SetteeError?
        do {
            _ = try await replication.run()
        } catch is CancellationError {
        } catch ReplicationError.cancelled {
        } catch {
            failure = SetteeError.from(error)
        }
        sampler.cancel()
        await sampler.value
        publish(.stopped(Self.progress(replication.progress), error: failure), slot: slot)
    }

    private static func progress(_ progress: Replication.Progress) -> ReplicationProgress {
        var result = ReplicationProgress()
        result.documentsRead = progress.stats.docsRead
        result.documentsWritten = progress.stats.docsWritten
        result.documentWriteFailures = progress.stats.docWriteFailures
        return result
    }

    private static func status(of progress: Replication.Progress, continuous: Bool) -> ReplicatorStatus {
        if let error = progress.lastError { return .offline(reason: error) }
        guard progress.replicationID != nil else { return .connecting }
        return progress.caughtUp && continuous ? .idle(Self.progress(progress)) : .busy(Self.progress(progress))
    }

    private func makeReplication(push: Bool) throws -> Replication {
        let data = database.data
        let local = LocalPeer(directory: data.directory, name: database.name, serverUUID: data.uuid,
                              maxDocumentSize: data.options.maxDocumentSize)
        let other: any SetteeReplicator.Peer
        switch peer {
        case .url(let url, let pin):
            let endpoints = PeerEndpoints(directory: nil, serverUUID: data.uuid, session: data.session,
                                          maxDocumentSize: data.options.maxDocumentSize)
            other = try endpoints.peer(url, pin: pin)
        case .database(let database):
            other = LocalPeer(directory: database.data.directory, name: database.name, serverUUID: database.data.uuid,
                              maxDocumentSize: database.data.options.maxDocumentSize)
        }
        var options = ReplicationOptions()
        options.continuous = isContinuous
        options.createTarget = createsTarget
        return Replication(source: push ? local : other, target: push ? other : local, options: options,
                           logger: data.logger)
    }
}

extension Identity {
    /// Runs `body` as this identity, for work that cannot throw.
    func performing(_ body: () async -> Void) async {
        await WriteContext.$writer.withValue(writer) { await body() }
    }
}
