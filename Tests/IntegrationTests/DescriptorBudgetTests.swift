import SetteeConfig
import Testing

/// How the descriptor limit is shared: databases at most half of it, less a reserve;
/// connections what remains; neither above what is configured.
@Suite struct DescriptorBudgetTests {
    /// This machine's limit (20,000): CouchDB's 500 databases (8 descriptors each at most
    /// with two readers) and 10,000 connections both fit.
    @Test func aRoomyLimitKeepsTheConfiguredCaps() {
        let caps = DescriptorBudget.caps(limit: 20_000, maxOpenDatabases: 500, maxConnections: 10_000, readers: 2)
        #expect(caps.databases == 500)
        #expect(caps.connections == 10_000)
    }

    /// Debian's default soft limit with no way up: both caps come down, and together
    /// with the reserve they stay inside the limit.
    @Test func aTightLimitLowersBoth() {
        let caps = DescriptorBudget.caps(limit: 1_024, maxOpenDatabases: 500, maxConnections: 10_000, readers: 2)
        #expect(caps.databases == (512 - 256) / 8)
        #expect(caps.databases * 8 + caps.connections + 256 <= 1_024)
        #expect(caps.connections > 0)
    }

    @Test func neverBelowOne() {
        let caps = DescriptorBudget.caps(limit: 64, maxOpenDatabases: 500, maxConnections: 10_000, readers: 2)
        #expect(caps.databases == 1)
        #expect(caps.connections == 1)
    }
}
