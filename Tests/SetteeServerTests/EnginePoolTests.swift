@testable import SetteeServer
import SetteeViews
import Testing

/// The service's idle engines: kept per design document of a database, never handed to
/// another database (even one at a freed one's identifier), the oldest released past the limit.
@Suite struct EnginePoolTests {
    final class FakeDatabase {}

    static func key(_ database: AnyObject, rev: String = "1-a") -> DesignCodeKey {
        DesignCodeKey(database: ObjectIdentifier(database), name: "db", id: "_design/d", rev: rev, digest: "00")
    }

    static func engine() throws -> CompiledEngine { CompiledEngine(try JavaScriptEngine()) }

    @Test func anEngineComesBackForItsOwnDesignDocumentOnly() throws {
        var pool = EnginePool()
        let database = FakeDatabase()
        let engine = try Self.engine()
        #expect(pool.checkOut(Self.key(database), database: database) == nil)
        #expect(pool.checkIn(engine, Self.key(database), database: database, limit: 4).isEmpty)
        #expect(pool.idleCount == 1)
        #expect(pool.checkOut(Self.key(database, rev: "2-b"), database: database) == nil)
        #expect(pool.checkOut(Self.key(database), database: database) === engine)
        #expect(pool.idleCount == 0)
    }

    @Test func anotherObjectUnderTheSameKeyGetsNothingAndDropsTheEntry() throws {
        var pool = EnginePool()
        let database = FakeDatabase()
        let impostor = FakeDatabase()
        let key = Self.key(database)
        _ = pool.checkIn(try Self.engine(), key, database: database, limit: 4)
        // The same identifier and name, another object (a database recreated at a freed one's address).
        #expect(pool.checkOut(key, database: impostor) == nil)
        #expect(pool.idleCount == 0)
        #expect(pool.checkOut(key, database: database) == nil)
    }

    @Test func theLeastRecentlyUsedEnginesAreReleasedPastTheLimit() throws {
        var pool = EnginePool()
        let first = FakeDatabase()
        let second = FakeDatabase()
        let old = try Self.engine()
        _ = pool.checkIn(old, Self.key(first), database: first, limit: 1)
        let released = pool.checkIn(try Self.engine(), Self.key(second), database: second, limit: 1)
        #expect(released.count == 1 && released[0] === old)
        #expect(pool.idleCount == 1)
        #expect(pool.checkOut(Self.key(first), database: first) == nil)
        #expect(pool.checkOut(Self.key(second), database: second) != nil)
    }
}
