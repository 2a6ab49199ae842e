internal import Glibc
import SetteeViews

/*
 Where passwords are checked: PBKDF2 at `[chttpd_auth] iterations` (CouchDB 3.4.3:
 600,000 rounds) keeps one core busy for a good part of a second, a blocking call that
 must not run on Swift's cooperative pool (STYLE 17): on two cores, a few wrong
 passwords sent at once would leave no thread for requests that check none (issue #46).
 So each check is a job for a small pool of threads of its own (half the cores, at
 least one; `JavaScriptThreads` is a bounded pool of dedicated threads, whatever they
 run), with a bounded queue: past `queueLimit` waiting checks, or after waiting
 `maximumWait` seconds, a login is refused with 503 rather than left to pile up.
 A credential that verified once is not hashed again (`CredentialCache`).
*/

/// Checks passwords against stored hashes off the cooperative pool.
final class PasswordHashing: Sendable {
    private let threads: JavaScriptThreads

    init(threadCount: Int? = nil, queueLimit: Int = 16, maximumWait: Double = 10) {
        let cores = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        threads = JavaScriptThreads(threadCount: threadCount ?? max(1, cores / 2), queueLimit: queueLimit,
                                    maximumWait: maximumWait)
    }

    /// Whether `password` matches `stored` (`PasswordHash.verify`), computed on the pool.
    /// - Throws: 503 `service_unavailable` when too many checks are waiting already.
    func verify(password: String, against stored: String) async throws -> Bool {
        do {
            return try await threads.run { PasswordHash.verify(password: password, against: stored) }
        } catch {
            throw CouchError(503, "service_unavailable", "Too many password checks are waiting; try again later.")
        }
    }

    /// The hash of a `SETTEE_ADMIN` admin (`EnvironmentAdmin.hash(on:)`), derived on the pool.
    /// - Throws: 503 `service_unavailable` when too many checks are waiting already.
    func derive(_ admin: EnvironmentAdmin) async throws -> String {
        do {
            return try await threads.run { admin.derivedHash() }
        } catch {
            throw CouchError(503, "service_unavailable", "Too many password checks are waiting; try again later.")
        }
    }
}
