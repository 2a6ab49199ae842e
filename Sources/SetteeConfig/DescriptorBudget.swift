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
        // An unlimited hard limit still stops at the kernel's fs.nr_open (setrlimit(2): EPERM above it).
        let ceiling = limit.rlim_max == rlim_t.max ? kernelCeiling() : limit.rlim_max  // RLIM_INFINITY
        if limit.rlim_cur < ceiling {
            var raised = limit
            raised.rlim_cur = ceiling
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 {
                logger.info("raised the file descriptor limit", metadata: [
                    "from": "\(limit.rlim_cur)", "to": "\(raised.rlim_cur)"])
                limit = raised
            } else {
                logger.warning("cannot raise the file descriptor limit to the hard limit",
                               metadata: ["soft": "\(limit.rlim_cur)", "hard": "\(limit.rlim_max)", "errno": "\(errno)"])
            }
        }
        return Int(clamping: limit.rlim_cur)
    }

    /// `/proc/sys/fs/nr_open`: the most descriptors a process may have (1,048,576 unless tuned).
    static func kernelCeiling() -> rlim_t {
        guard let file = fopen("/proc/sys/fs/nr_open", "r") else { return 1 << 20 }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 32)
        guard fgets(&line, Int32(line.count), file) != nil else { return 1 << 20 }
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return rlim_t(text.split(separator: "\n").first ?? "") ?? 1 << 20
    }

    /// What `limit` descriptors allow: open databases and connections, each at most as configured.
    public static func caps(limit: Int, maxOpenDatabases: Int, maxConnections: Int, readers: Int)
        -> (databases: Int, connections: Int) {
        let perDatabase = descriptorsPerDatabase(readers: readers)
        let databases = min(maxOpenDatabases, max(1, (limit / 2 - reserve) / perDatabase))
        let connections = min(maxConnections, max(1, limit - reserve - databases * perDatabase))
        return (databases, connections)
    }

    /// The start-up warning when `limit` holds caps below what is configured, naming only
    /// the caps it lowered; nil when both fit.
    public static func loweredCapsWarning(limit: Int, databases: Int, configuredDatabases: Int,
                                   connections: Int, configuredConnections: Int) -> String? {
        var lowered: [String] = []
        if databases < configuredDatabases {
            lowered.append("[couchdb] max_dbs_open to \(databases) (configured \(configuredDatabases))")
        }
        if connections < configuredConnections {
            lowered.append("[settee] max_connections to \(connections) (configured \(configuredConnections))")
        }
        guard !lowered.isEmpty else { return nil }
        return "the file descriptor limit (\(limit); raise the hard limit, e.g. `ulimit -Hn` or LimitNOFILE=) "
            + "is too low for the configured caps: lowered " + lowered.joined(separator: " and ")
    }

    /// Lowers `node`'s caps to what `limit` allows, saying so (once, at start-up) when it does.
    public static func fit(_ node: inout NodeConfiguration, limit: Int, logger: Logger) {
        let readers = max(1, node.store.readerCount)
        let (databases, connections) = caps(limit: limit, maxOpenDatabases: node.store.maxOpenDatabases,
                                            maxConnections: node.http.maxConnections, readers: readers)
        if let warning = loweredCapsWarning(limit: limit, databases: databases,
                                            configuredDatabases: node.store.maxOpenDatabases,
                                            connections: connections, configuredConnections: node.http.maxConnections) {
            logger.warning("\(warning)")
        }
        node.store.maxOpenDatabases = databases
        node.http.maxConnections = connections
        logger.info("file descriptors", metadata: [
            "limit": "\(limit)", "max_dbs_open": "\(databases)",
            "per_database": "\(descriptorsPerDatabase(readers: readers))", "max_connections": "\(connections)",
        ])
    }
}
