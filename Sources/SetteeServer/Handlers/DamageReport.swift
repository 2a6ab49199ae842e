internal import Logging
import SetteeStore

/// Which attachment a read serves, so a damaged blob is logged by name: the store knows
/// only its digest, an operator needs the database, document and attachment.
struct DamageReport: Sendable {
    let logger: Logger
    let database: String
    let document: String
    let attachment: String

    /// Runs `work`; a damaged attachment is logged before its error goes on.
    func noticing<T>(_ work: () async throws -> T) async throws -> T {
        do {
            return try await work()
        } catch StoreError.attachmentDamaged(let digest, let detail) {
            logger.error("attachment damaged: database \(database) document \(document) attachment \(attachment) (\(digest)): \(detail); response aborted")
            throw StoreError.attachmentDamaged(digest: digest, detail: detail)
        }
    }
}
