import Logging
import SetteeConfig
import SetteeHTTP
import SetteeServer
import SetteeStore
import SetteeTestSupport
import Testing

/// How the descriptor limit is shared: databases at most half of it, less a reserve;
/// connections what remains; neither above what is configured.
@Suite struct DescriptorBudgetTests {
    /// This machine's limit (20,000): CouchDB's 500 databases (8 descriptors each at most
    /// with two readers) and the default 12,000 connections both fit.
    @Test func aRoomyLimitKeepsTheConfiguredCaps() {
        let caps = DescriptorBudget.caps(limit: 20_000, maxOpenDatabases: 500, maxConnections: 12_000, readers: 2)
        #expect(caps.databases == 500)
        #expect(caps.connections == 12_000)
        #expect(DescriptorBudget.loweredCapsWarning(limit: 20_000, databases: 500, configuredDatabases: 500,
                                                    connections: 12_000, configuredConnections: 12_000) == nil)
    }

    /// Issue 45: 10,000 idle continuous feeds hold 10,000 connections; the default cap
    /// leaves room beside them for the requests (a write, an admin) that are not feeds.
    @Test func theDefaultConnectionCapLetsTenThousandFeedsAndOthersIn() throws {
        let dir = try TempDirectory(prefix: "budget")
        var config = try SetteeConfiguration.load(
            overrides: ConfigOverrides(dataDirectory: dir.appending("data")), environment: [:])
        let node = try NodeSetup.nodeConfiguration(for: &config, logger: Logger(label: "test"))
        #expect(node.http.maxConnections >= 10_000 + 1_000)
        let caps = DescriptorBudget.caps(limit: 20_000, maxOpenDatabases: node.store.maxOpenDatabases,
                                         maxConnections: node.http.maxConnections, readers: 2)
        #expect(caps.connections == node.http.maxConnections, "this machine's 20,000 descriptors hold it")
    }

    /// A limit that holds the databases but not the connections names only the cap it lowered.
    @Test func theWarningNamesOnlyTheLoweredCaps() {
        let caps = DescriptorBudget.caps(limit: 14_000, maxOpenDatabases: 500, maxConnections: 12_000, readers: 2)
        #expect(caps.databases == 500 && caps.connections == 14_000 - 256 - 500 * 8)
        let warning = DescriptorBudget.loweredCapsWarning(
            limit: 14_000, databases: caps.databases, configuredDatabases: 500,
            connections: caps.connections, configuredConnections: 12_000) ?? ""
        #expect(warning.contains("[settee] max_connections to 9744 (configured 12000)"))
        #expect(!warning.contains("max_dbs_open"))
        let both = DescriptorBudget.loweredCapsWarning(limit: 1_024, databases: 32, configuredDatabases: 500,
                                                       connections: 512, configuredConnections: 12_000) ?? ""
        #expect(both.contains("max_dbs_open to 32") && both.contains("max_connections to 512"))
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
