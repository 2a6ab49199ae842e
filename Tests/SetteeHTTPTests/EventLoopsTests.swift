@testable import SetteeHTTP
import Testing

/// A server's loops are dealt out to connections in turn.
@Suite struct EventLoopsTests {
    @Test func connectionsAreDealtToTheLoopsInTurn() throws {
        let loops = try EventLoops(count: 3)
        defer { loops.stop() }
        let dealt = (0..<6).map { _ in ObjectIdentifier(loops.next()) }
        let all = loops.all.map(ObjectIdentifier.init)
        #expect(Set(all).count == 3)
        #expect(dealt == all + all)
    }

    /// Asked for none, a server still has one loop.
    @Test func thereIsAlwaysALoop() throws {
        let loops = try EventLoops(count: 0)
        defer { loops.stop() }
        #expect(loops.all.count == 1)
        #expect(loops.next() === loops.first)
    }
}
