/// Which view queries, once on the event loop's thread (`LightRequest`), are answered
/// there: those that read a current index's rows through a reader and write a bounded
/// page of them, such as a point query `?key=K` (issue 45 item 2). The loop never blocks
/// nor runs long, so everything else moves to the pool (`LightRequest.offLoop`):
///
/// - a reduce (a JavaScript function, or a built-in one over any number of rows);
/// - `include_docs` (a read per document, attachments inline);
/// - `keys` (a read per key), `sorted=false` (pages read with no first-page prefetch);
/// - a view whose functions were not yet compiled (a call into JavaScript);
/// - a design document not yet parsed since the database's last write (read, parsed, hashed);
/// - a refresh of a stale index (a build), decided where it starts (`ViewHandlers.run`),
///   so a write landing after this decision cannot make the loop build;
/// - rows past the first page, which the loop reads at most `loopRows` of.
enum LightViewQuery {
    /// Rows a query writes on the loop's thread at most (each about 0.6 µs to write: a
    /// point query of ~100 rows stays, a key of thousands of rows goes to the pool).
    static let loopRows = 256

    /// Whether `query` of a view (with a reduce or not) may be answered on the loop,
    /// its functions being compiled already (`isCompiled`) or not.
    static func staysOnLoop(_ query: ViewQuery, viewHasReduce: Bool, isCompiled: Bool) -> Bool {
        let reduce = query.reduce ?? viewHasReduce
        return isCompiled && !reduce && !query.includeDocs && !query.isMultiKey && query.sorted
    }

    /// The first page's size on the loop: the page the query would read, at most `loopRows`.
    static func firstPageLimit(_ pageSize: Int) -> Int { min(pageSize, loopRows) }

    /// Whether rows may follow a first page of `count` rows read with `limit`: the page was
    /// full and the query wants more rows than it gave (after `skip`).
    static func mayNeedMorePages(count: Int, limit: Int, _ query: ViewQuery) -> Bool {
        count >= limit && max(0, count - query.skip) < query.limit
    }
}
