/*
 A key written twice in one object: CouchDB keeps the last value, at the place of its last
 occurrence. It decodes every request body with `couch_util:json_decode/2`, which calls
 `jiffy:decode(V, [dedupe_keys | Opts])`, and jiffy's `dedupe_keys` keeps "a single entry
 containing the last value seen" (jiffy README; its test jiffy_16_dedupe_keys_tests).
 `{"v":1,"w":0,"v":2}` is stored and read back as `{"w":0,"v":2}` on CouchDB 3.4.3.
 */
extension JSONObject {
    /// Up to this many members, keys are compared pairwise: cheaper than hashing each
    /// one for the small objects documents are made of.
    static let pairwiseKeyLimit = 16

    /// Whether two of `members` have the same key.
    static func hasDuplicateKeys(_ members: [Member]) -> Bool {
        guard members.count > 1 else { return false }
        if members.count <= pairwiseKeyLimit {
            for i in 1..<members.count {
                for j in 0..<i where members[j].key == members[i].key { return true }
            }
            return false
        }
        var seen = Set<String>(minimumCapacity: members.count)
        for member in members where !seen.insert(member.key).inserted { return true }
        return false
    }

    /// `members` with only the last member of each key, each where it was written.
    static func keepingLastOfEachKey(_ members: [Member]) -> [Member] {
        var last: [String: Int] = [:]
        for (i, member) in members.enumerated() { last[member.key] = i }
        return members.indices.filter { last[members[$0].key] == $0 }.map { members[$0] }
    }
}
