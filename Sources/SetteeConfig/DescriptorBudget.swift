/*
 File descriptors at start-up: the process's limit, raised where the system allows it,
 shared between open databases and client connections so neither can starve the other
 (issue 45: 2,850 databases once took all 20,000 descriptors, and then `accept4` failed
 with EMFILE, so no client could connect any more).

 - The soft RLIMIT_NOFILE is raised to the hard one (getrlimit(2): an unprivileged
   process may raise its soft limit up to the hard limit); when it cannot be, or the
   hard limit is what holds the caps down, start-up says so.
 - Open databases get at most half the limit, less a reserve: `max_dbs_open` is lowered,
   with a warning, when that many databases would not fit (`descriptorsPerDatabase`).
 - Client connections get what remains after the databases' share and the reserve, so a
   server at its connection cap still has descriptors for its databases, and one at its
   database cap still accepts clients.
*/
internal import Glibc
public import Logging
public import SetteeServer
internal import SetteeHTTP
internal import SetteeStore

/// The process's descriptor limit and its division between databases and connections.
public enum DescriptorBudget {
    /// Descriptors kept for everything else: listeners, epoll, pipes, logs, libcurl's
    /// sockets of replications, DNS-SD, attachment files being read or written.
    static let reserve = 256

    /// Descriptors of one open database without attachments at most: a file and its WAL
    /// per connection (the writer and `readerCount` readers), the shared-memory file and
    /// the committed-sequence file (`CommittedSequenceFile`).
    static func descriptorsPerDatabase(readers: Int) -> Int { 2 * (1 + readers) + 2 }

    /// Raises the soft RLIMIT_NOFILE to the hard limit and returns the soft limit in force.
    public static func raiseLimit(logger: Logger) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else {
            logger.warning("cannot read the file descriptor limit", metadata: ["errno": "\(errno)"])
            return 1024
        }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 {
                limit = raised
            } else {
                logger.warning("cannot raise the file descriptor limit to the hard limit",
                               metadata: ["soft": "\(limit.rlim_cur)", "hard": "\(limit.rlim_max)", "errno": "\(errno)"])
            }
        }
        return Int(clamping: limit.rlim_cur)
    }

    /// What `limit` descriptors allow: open databases and connections, each at most as configured.
    public static func caps(limit: Int, maxOpenDatabases: Int, maxConnections: Int, readers: Int)
        -> (databases: Int, connections: Int) {
        let perDatabase = descriptorsPerDatabase(readers: readers)
        let databases = min(maxOpenDatabases, max(1, (limit / 2 - reserve) / perDatabase))
        let connections = min(maxConnections, max(1, limit - reserve - databases * perDatabase))
        return (databases, connections)
    }

    /// Lowers `node`'s caps to what `limit` allows, saying so when it does.
    public static func fit(_ node: inout NodeConfiguration, limit: Int, logger: Logger) {
        let readers = max(1, node.store.readerCount)
        let (databases, connections) = caps(limit: limit, maxOpenDatabases: node.store.maxOpenDatabases,
                                            maxConnections: node.http.maxConnections, readers: readers)
        if databases < node.store.maxOpenDatabases || connections < node.http.maxConnections {
            logger.warning("""
                the file descriptor limit (\(limit); raise the hard limit, e.g. `ulimit -Hn`, LimitNOFILE=) \
                holds [couchdb] max_dbs_open at \(databases) (configured \(node.store.maxOpenDatabases)) \
                and client connections at \(connections) (configured \(node.http.maxConnections))
                """)
        }
        node.store.maxOpenDatabases = databases
        node.http.maxConnections = connections
        logger.info("file descriptors", metadata: [
            "limit": "\(limit)", "max_dbs_open": "\(databases)",
            "per_database": "\(descriptorsPerDatabase(readers: readers))", "max_connections": "\(connections)",
        ])
    }
}
