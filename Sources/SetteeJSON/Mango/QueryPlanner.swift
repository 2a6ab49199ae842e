/*
 Index choice for `_find`, as CouchDB 3.4 makes it (mango_cursor:create/4,
 mango_idx:get_usable_indexes/4, mango_cursor_view:choose_best_index/1):

 1. Candidates: every index without a partial filter, `_all_docs`, and whatever
    `use_index` names (partial or not).
 2. Usable: a json index whose columns, less the sort fields and `_id`/`_rev`, the
    selector requires, and whose columns can give the sort (a prefix of the
    columns after leading `$eq`-fixed ones); `_all_docs` without a sort or sorted
    by `_id` alone. None usable: `no_usable_index`.
 3. `use_index`, when it names a usable index, decides; otherwise the choice falls
    back (with a warning) unless `allow_fallback` is false.
 4. json indexes before `_all_docs`; among them the one whose run of leading columns
    with ranges is closest to the selector's indexable fields, then the fewest
    columns, then by (ddoc, name).
*/

/// The chosen index and the part of it to read.
public struct QueryPlan: Sendable {
    public let index: MangoIndex
    /// Keys to scan: encoded index keys, or for `_all_docs` the ids' UTF-8 bytes.
    public let range: KeyRange
    public let isDescending: Bool
    /// The selector's bounds contradict each other: nothing can match.
    public let isEmpty: Bool
    /// Warnings about the choice (an unusable `use_index`, no index used).
    public let warnings: [String]
    /// Every index considered, for `_explain`.
    public let candidates: [Candidate]
    /// `_explain`'s `start_key` and `end_key` (JSON values, "<MAX>" for an open end).
    public let startKey: [JSONValue]
    public let endKey: [JSONValue]

    public struct Candidate: Sendable {
        public let index: MangoIndex
        public let isUsable: Bool
        public let reasons: [String]
    }
}

public enum QueryPlanner {
    /// Chooses among `indexes` (the database's json indexes) and `_all_docs`.
    /// - Throws: `no_usable_index` when no index can give the sort; `invalid_index`
    ///   when `use_index` names none usable and fallback is not allowed.
    public static func plan(_ request: FindRequest, indexes: [MangoIndex]) throws(MangoError) -> QueryPlan {
        let selector = request.selector
        let analysed = candidates(request, indexes: indexes)
        let usable = analysed.filter(\.isUsable).map(\.index)
        guard !usable.isEmpty else { throw .noUsableIndex }

        var pool = request.useIndex.isEmpty ? [] : usable.filter { matches($0, request.useIndex) }
        var warnings: [String] = []
        if pool.isEmpty {
            guard request.allowFallback || (request.useIndex.isEmpty && usable.count > 1) else {
                throw invalidIndex(request.useIndex)
            }
            pool = usable
            if !request.useIndex.isEmpty { warnings.append(unusedIndexWarning(request.useIndex)) }
        }
        let fieldRanges = selector.indexableFields()
        let json = pool.filter { !$0.isSpecial }
        let chosen = json.min { better($0, than: $1, fieldRanges) } ?? MangoIndex.allDocs
        if chosen.isSpecial { warnings.append("No matching index found, create an index to optimize query time.") }
        return plan(chosen, selector, request, warnings: warnings, candidates: analysed)
    }

    /// Every index considered (steps 1 and 2), usable or not with the reasons: `_explain`
    /// lists them even when none is usable.
    public static func candidates(_ request: FindRequest, indexes: [MangoIndex]) -> [QueryPlan.Candidate] {
        let named = request.useIndex.isEmpty ? [] : indexes.filter { matches($0, request.useIndex) }
        var candidates = [MangoIndex.allDocs] + indexes.filter { $0.partialFilter == nil }
        for index in named where !candidates.contains(where: { same($0, index) }) { candidates.append(index) }
        return candidates.map { index in
            let reasons = unusableReasons(index, request.selector, request.sort.fields)
            return .init(index: index, isUsable: reasons.isEmpty, reasons: reasons)
        }
    }

    /// Usable indexes in the order of preference (step 4): `_explain`'s `ranking`.
    public static func preferred(_ usable: [MangoIndex], _ selector: Selector) -> [MangoIndex] {
        let fieldRanges = selector.indexableFields()
        return usable.filter { !$0.isSpecial }.sorted { better($0, than: $1, fieldRanges) } + usable.filter(\.isSpecial)
    }

    private static func plan(_ index: MangoIndex, _ selector: Selector, _ request: FindRequest,
                             warnings: [String], candidates: [QueryPlan.Candidate]) -> QueryPlan {
        let descending = request.sort.isDescending
        if index.isSpecial {
            let (range, start, end) = idRange(selector.range(of: FieldPath(keys: ["_id"])), selector)
            return QueryPlan(index: index, range: range, isDescending: descending, isEmpty: range.isEmpty,
                             warnings: warnings, candidates: candidates, startKey: start, endKey: end)
        }
        let indexable = Set(selector.indexableFields())
        var prefix: [UInt8] = []
        var range = KeyRange(lower: [], upper: nil)
        var (start, end): ([JSONValue], [JSONValue]) = ([], [])
        var isEmpty = false
        var bounded = false
        for path in index.paths where indexable.contains(path) {
            let field = selector.range(of: path)
            if field.isEmpty { isEmpty = true }
            if let point = field.point {
                prefix += point
                start.append(field.lowerValue ?? .null)
                end.append(field.upperValue ?? .null)
                continue
            }
            range = KeyRange(lower: prefix + (field.lower ?? []),
                             upper: field.upper.map { prefix + $0 } ?? IndexKeyEncoding.upperBound(prefix))
            if let low = field.lowerValue { start.append(low) }
            end.append(field.upperValue ?? "<MAX>")
            bounded = true
            break
        }
        if !bounded {
            range = KeyRange(lower: prefix, upper: prefix.isEmpty ? nil : IndexKeyEncoding.upperBound(prefix))
            end.append("<MAX>")
        }
        return QueryPlan(index: index, range: range, isDescending: descending, isEmpty: isEmpty || range.isEmpty,
                         warnings: warnings, candidates: candidates, startKey: start, endKey: end)
    }

    /// `_all_docs` bounds from the selector's string conditions on `_id` (raw id bytes).
    private static func idRange(_ field: FieldRange, _ selector: Selector) -> (KeyRange, [JSONValue], [JSONValue]) {
        var range = KeyRange()
        for case .field(let path, let test) in selector.conjuncts where path.keys == ["_id"] {
            switch test {
            case .compare(let op, .string(let id)):
                let bytes = Array(id.utf8)
                switch op {
                case .eq: range.raise(bytes); range.cap(bytes + [0])
                case .gt: range.raise(bytes + [0])
                case .gte: range.raise(bytes)
                case .lt: range.cap(bytes)
                case .lte: range.cap(bytes + [0])
                case .ne: break
                }
            case .beginsWith(let prefix):
                range.raise(Array(prefix.utf8))
                range.cap(Array(prefix.utf8) + [0xFF])
            default: break
            }
        }
        return (range, field.lowerValue.map { [$0] } ?? [], [field.upperValue ?? "<MAX>"])
    }

    /// Why `index` cannot serve the query (mango_idx_view:is_usable/3); empty when it can.
    static func unusableReasons(_ index: MangoIndex, _ selector: Selector, _ sortFields: [String]) -> [String] {
        let sortPaths = sortFields.compactMap { try? FieldPath(parsing: $0) }
        if index.isSpecial {
            guard !sortFields.isEmpty else { return [] }
            var reasons: [String] = []
            if !selector.indexableFields().contains(FieldPath(keys: ["_id"])) { reasons.append("field_mismatch") }
            if sortFields != ["_id"] { reasons.append("sort_order_mismatch") }
            return reasons
        }
        let required = selector.requiredFields()
        let meta: Set<FieldPath> = [FieldPath(keys: ["_id"]), FieldPath(keys: ["_rev"])]
        let needed = index.paths.filter { !sortPaths.contains($0) && !meta.contains($0) }
        var reasons: [String] = []
        if !needed.allSatisfy(required.contains) { reasons.append("field_mismatch") }
        if !canUseSort(index.paths[...], sortPaths[...], selector) { reasons.append("sort_order_mismatch") }
        return reasons
    }

    private static func canUseSort(_ columns: ArraySlice<FieldPath>, _ sort: ArraySlice<FieldPath>,
                                   _ selector: Selector) -> Bool {
        guard let first = sort.first else { return true }
        guard let column = columns.first else { return false }
        if column == first { return columns.starts(with: sort) }
        return selector.isConstant(column) && canUseSort(columns.dropFirst(), sort, selector)
    }

    /// choose_best_index's order.
    private static func better(_ a: MangoIndex, than b: MangoIndex, _ fieldRanges: [FieldPath]) -> Bool {
        let (da, db) = (fieldRanges.count - prefixLength(a, fieldRanges), fieldRanges.count - prefixLength(b, fieldRanges))
        if da != db { return da < db }
        if a.columns.count != b.columns.count { return a.columns.count < b.columns.count }
        return (a.ddoc ?? "", a.name) <= (b.ddoc ?? "", b.name)
    }

    /// How many of the selector's indexable fields the index's leading columns leave out
    /// (mango_cursor_view:composite_indexes/2's `PrefixDifference`): `_explain` says
    /// `less_overlap` for an index passed over with any.
    public static func prefixDistance(_ index: MangoIndex, _ selector: Selector) -> Int {
        let fieldRanges = selector.indexableFields()
        return fieldRanges.count - prefixLength(index, fieldRanges)
    }

    private static func prefixLength(_ index: MangoIndex, _ fieldRanges: [FieldPath]) -> Int {
        index.paths.prefix { fieldRanges.contains($0) }.count
    }

    static func matches(_ index: MangoIndex, _ useIndex: [String]) -> Bool {
        guard let ddoc = index.ddoc, let first = useIndex.first else { return false }
        let wanted = first.hasPrefix("_design/") ? first : "_design/" + first
        return ddoc == wanted && (useIndex.count < 2 || index.name == useIndex[1])
    }

    private static func same(_ a: MangoIndex, _ b: MangoIndex) -> Bool { a.ddoc == b.ddoc && a.name == b.name }

    private static func designName(_ id: String) -> String {
        id.hasPrefix("_design/") ? String(id.dropFirst("_design/".count)) : id
    }

    private static func unusedIndexWarning(_ useIndex: [String]) -> String {
        useIndex.count == 2
            ? "_design/\(designName(useIndex[0])), \(useIndex[1]) was not used because it is not a valid index for this query."
            : "_design/\(designName(useIndex[0])) was not used because it does not contain a valid index for this query."
    }

    private static func invalidIndex(_ useIndex: [String]) -> MangoError {
        switch useIndex.count {
        case 0: MangoError(400, "invalid_index", "You must specify an index with the `use_index` parameter.")
        case 1: MangoError(400, "invalid_index",
                           "_design/\(designName(useIndex[0])) specified by `use_index` could not be found or it is not suitable.")
        default: MangoError(400, "invalid_index",
                            "_design/\(designName(useIndex[0])), \(useIndex[1]) specified by `use_index` could not be found or it is not suitable.")
        }
    }
}
