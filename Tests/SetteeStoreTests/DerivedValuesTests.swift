import Testing
@testable import SetteeStore

@Suite struct DerivedValuesTests {
    @Test func keepsAValueByKeyAndType() {
        let values = DerivedValues()
        #expect(values["a", as: Int.self] == nil)
        values.keep(41, for: "a")
        values.keep(42, for: "a")
        #expect(values["a", as: Int.self] == 42)
        #expect(values["a", as: String.self] == nil)
    }

    @Test func startsAgainPastItsCapacity() {
        let values = DerivedValues()
        for i in 0..<DerivedValues.capacity { values.keep(i, for: "k\(i)") }
        #expect(values["k0", as: Int.self] == 0)
        values.keep(-1, for: "k0")  // a key already there replaces, keeps the rest
        #expect(values["k1", as: Int.self] == 1)
        values.keep(0, for: "one more")
        #expect(values["k1", as: Int.self] == nil && values["one more", as: Int.self] == 0)
    }

    /// Two databases of one name in two directories (two nodes in one program) share nothing.
    @Test func belongToTheirDatabase() throws {
        let one = try TestStore(), two = try TestStore()
        defer { one.remove(); two.remove() }
        let a = try one.directory.create("db"), b = try two.directory.create("db")
        a.derived.keep("from one", for: "design\u{0}_design/x")
        #expect(b.derived["design\u{0}_design/x", as: String.self] == nil)
        #expect(a.derived["design\u{0}_design/x", as: String.self] == "from one")
    }
}
