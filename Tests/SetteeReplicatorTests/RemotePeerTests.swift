import Foundation
import SetteeHTTP
import SetteeJSON
@testable import SetteeReplicator
import SetteeTestSupport
import Testing

@Suite struct RemotePeerTests {
    /// Issue 47, item 5: after a source restart the replicator logged "sent a malformed
    /// JSON body; retrying": a stopping Settee ends a waiting longpoll `_changes` with a
    /// 200 and no body before it closes the connection. That is a closed connection (the
    /// peer unreachable for now), and is named so.
    @Test func anAnswerWithNoBodyIsAClosedConnectionNotMalformedJSON() async throws {
        let server = try RemoteServer()
        try await server.request("PUT", "/src")
        let url = server.process.baseURL
        let proxy = FaultyProxy(upstream: "http://127.0.0.1:\(url.port ?? 0)") { request, _ in
            FaultyProxy.kind(request.rawPath) == "_changes" ? .emptyBody : nil
        }
        try proxy.start()
        let admin = SetteeProcess.defaultAdmin
        let base = proxy.base.replacingOccurrences(of: "http://", with: "http://\(admin.name):\(admin.password)@")
        let peer = RemotePeer(endpoint: try RemoteEndpoint(url: base + "/src"), session: CurlSession(), timeout: .seconds(30))
        var thrown: ReplicationError?
        do {
            _ = try await peer.changes(since: 0, limit: 10, filter: nil, wait: .milliseconds(100))
        } catch let error as ReplicationError {
            thrown = error
        }
        await proxy.stop()
        guard case .unreachable(_, let cause)? = thrown else {
            Issue.record("expected .unreachable, got \(String(describing: thrown))")
            return
        }
        #expect(cause.contains("closed the connection"))
        #expect(thrown?.isTransient == true)
    }
}
