import SetteeJSON
import Testing

/// JSONObject's semantics, at a size that scans (a few members) and at one that keeps a
/// key index (more than `indexThreshold`, 32): both must answer alike.
@Suite struct JSONObjectTests {
    /// An object whose first `count` members (`k0`, `k1`, ...) were set one by one.
    private static func built(_ count: Int) -> JSONObject {
        var object = JSONObject()
        for i in 0..<count { object["k\(i)"] = .number(JSONNumber(i)) }
        return object
    }

    static let sizes = [3, 200]

    @Test(arguments: sizes) func keysKeepTheirInsertionOrder(count: Int) {
        var object = Self.built(count)
        object["z"] = "last"
        #expect(object.keys == (0..<count).map { "k\($0)" } + ["z"])
        #expect(object["k\(count - 1)"] == .number(JSONNumber(count - 1)))
        #expect(object["missing"] == nil)
    }

    @Test(arguments: sizes) func aKeySetTwiceKeepsItsFirstPlaceAndLastValue(count: Int) {
        var object = Self.built(count)
        object["k1"] = "again"
        object["new"] = 1
        object["new"] = 2
        #expect(object.count == count + 1)
        #expect(object.keys[1] == "k1")
        #expect(object["k1"] == "again")
        #expect(object.members.last == JSONObject.Member(key: "new", value: 2))
    }

    @Test(arguments: sizes) func settingNilRemovesTheKeyAndLaterKeysStillResolve(count: Int) {
        var object = Self.built(count)
        object["k0"] = nil
        #expect(object.count == count - 1)
        #expect(object["k0"] == nil)
        #expect(object["k2"] == .number(JSONNumber(2)))
        object["k2"] = "changed"
        #expect(object.keys[1] == "k2", "set in place, not appended")
        object["k0"] = "back"
        #expect(object.keys.last == "k0", "a removed key set again comes back at the end")
    }

    /// An object built from members can hold a key twice (a parsed one cannot: the reader
    /// keeps the last, as CouchDB): the first member wins on reads and sets, and `nil` removes both.
    @Test(arguments: sizes) func aDuplicatedKeyResolvesToItsFirstMember(count: Int) throws {
        var members = Self.built(count).members
        members.insert(JSONObject.Member(key: "dup", value: "first"), at: 1)
        members.append(JSONObject.Member(key: "dup", value: "second"))
        var object = JSONObject(members: members)
        #expect(object["dup"] == "first")
        object["k0"] = "set"  // on a large object this builds the index
        object["dup"] = "replaced"
        #expect(object.members[1].value == "replaced")
        #expect(object.members.last?.value == "second")
        object.append("dup", "third")
        #expect(object["dup"] == "replaced")
        object["dup"] = nil
        #expect(!object.keys.contains("dup"))
        #expect(object.count == count)
    }

    @Test(arguments: sizes) func removeAllWhereShiftsTheMembersAfterIt(count: Int) {
        var object = Self.built(count)
        object.removeAll { $0.key == "k0" || $0.key == "k1" }
        #expect(object["k2"] == .number(JSONNumber(2)))
        #expect(object.keys.first == "k2")
        object["k2"] = "set"
        #expect(object.members[0].value == "set")
    }

    /// The index is a cache: an object set key by key equals (and hashes as) the same
    /// members given at once.
    @Test(arguments: sizes) func equalityAndHashingAreTheMembersAlone(count: Int) {
        let built = Self.built(count)
        let given = JSONObject(members: built.members)
        #expect(built == given)
        #expect(built.hashValue == given.hashValue)
        var other = given
        other["k0"] = "different"
        #expect(other != built)
    }
}
