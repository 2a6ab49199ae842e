/// At most `limit` bodies of work at once; the others wait their turn, first come
/// first served. Shared by every chunk of a replication that holds it.
final class ConcurrencyLimit: Sendable {
    private let slots: Slots

    init(_ limit: Int) { slots = Slots(limit: max(1, limit)) }

    /// Runs `work` once a slot is free, and frees it after.
    func run<T: Sendable>(_ work: @Sendable () async throws -> T) async throws -> T {
        await slots.acquire()
        do {
            let value = try await work()
            await slots.release()
            return value
        } catch {
            await slots.release()
            throw error
        }
    }

    private actor Slots {
        private var free: Int
        private var waiting: [CheckedContinuation<Void, Never>] = []

        init(limit: Int) { free = limit }

        func acquire() async {
            if free > 0 {
                free -= 1
                return
            }
            await withCheckedContinuation { waiting.append($0) }
        }

        /// Hands the slot to the longest waiter, or frees it.
        func release() {
            if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
        }
    }
}
