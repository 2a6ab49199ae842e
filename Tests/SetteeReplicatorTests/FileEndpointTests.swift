import Foundation
import Logging
@testable import SetteeReplicator
import SetteeTestSupport
import Testing

/// `file://` endpoints (sneakernet, issue #44 item 4): how a URL names a data directory and
/// a database, and that endpoints refuse them unless whoever runs the process allows them.
@Suite struct FileEndpointTests {
    @Test func theLastSegmentIsTheDatabaseAndTheRestTheDirectory() throws {
        let endpoint = try FileEndpoint(url: "file:///media/stick/carry/notes")
        #expect(endpoint.directory == "/media/stick/carry" && endpoint.name == "notes")
        let encoded = try FileEndpoint(url: "file://localhost/media/my%20stick/a%2Fb/")
        #expect(encoded.directory == "/media/my stick" && encoded.name == "a/b")
    }

    @Test(arguments: ["file://notes", "file:///notes", "file://otherhost/media/notes", "file:///media/Notes",
                      "file:///media/%ZZ/notes", "file:///media/a%2Fb/notes"])
    func malformedURLsAreInvalidEndpoints(_ url: String) {
        #expect(throws: ReplicationError.invalidEndpoint(url)) { try FileEndpoint(url: url) }
    }

    @Test func endpointsRefuseFilesUnlessAllowed() async throws {
        let dir = try TempDirectory(prefix: "file-endpoint")
        let url = "file://" + dir.path + "/notes"
        let session = CurlSession(maxConnections: 1)
        let refusing = PeerEndpoints(directory: nil, serverUUID: "", session: session)
        #expect(throws: ReplicationError.fileEndpointRefused(url)) { try refusing.peer(url) }
        let allowing = PeerEndpoints(directory: nil, serverUUID: "", session: session, allowsFiles: true)
        let first = try allowing.peer(url), second = try allowing.peer(url)
        // One open (and one lock) shared by two peers of this process, under one stored uuid.
        let uuid = try String(contentsOfFile: dir.appending(FileDirectory.uuidFileName), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(uuid.count == 32)
        #expect(first.displayName == url && second.displayName == url)
        let identities = [try await first.identity(), try await second.identity()]
        #expect(identities.allSatisfy { $0.serverUUID == uuid && $0.database == "notes" })
    }
}
