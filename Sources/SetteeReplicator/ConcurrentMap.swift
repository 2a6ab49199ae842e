extension Array where Element: Sendable {
    /// `transform` of every element, at most `limit` at a time, in the elements' order.
    /// The first error thrown ends the rest (their tasks are cancelled) and is rethrown.
    func concurrentMap<T: Sendable>(limit: Int, _ transform: @escaping @Sendable (Element) async throws -> T)
        async throws -> [T] {
        var results = [T?](repeating: nil, count: count)
        try await withThrowingTaskGroup(of: (Int, T).self) { group in
            var running = 0
            for (index, element) in enumerated() {
                if running == Swift.max(1, limit), let (done, value) = try await group.next() {
                    results[done] = value
                    running -= 1
                }
                group.addTask { (index, try await transform(element)) }
                running += 1
            }
            for try await (done, value) in group { results[done] = value }
        }
        return results.map { $0! }
    }
}
