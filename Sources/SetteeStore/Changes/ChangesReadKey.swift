/// The key of a shared `_changes` read (`Database.changes`): where it starts and
/// how many rows it may hold.
struct ChangesReadKey: Hashable, Sendable {
    let since: Int64
    let limit: Int?
}
