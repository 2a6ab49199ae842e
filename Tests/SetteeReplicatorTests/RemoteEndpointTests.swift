@testable import SetteeReplicator
import Testing

/// Database URLs taken apart, here those of IPv6 peers (issue 41, item 4).
@Suite struct RemoteEndpointTests {
    @Test func aLinkLocalPeerKeepsItsPercentEncodedZone() throws {
        // What discovery builds for a peer seen on eth0 (RFC 6874); libcurl reads this form.
        let endpoint = try RemoteEndpoint(url: "http://admin:secret@[fe80::1%25eth0]:5984/shared")
        #expect(endpoint.root == "http://[fe80::1%25eth0]:5984")
        #expect(endpoint.database == "http://[fe80::1%25eth0]:5984/shared")
        #expect(endpoint.name == "shared")
        #expect(endpoint.credentials?.user == "admin" && endpoint.credentials?.password == "secret")
    }

    @Test func ipv6LiteralsStayBracketedAndIPv4AndNamesUnchanged() throws {
        #expect(try RemoteEndpoint(url: "http://[2001:db8::1]:5984/db").root == "http://[2001:db8::1]:5984")
        #expect(try RemoteEndpoint(url: "http://198.18.0.1:5984/db").root == "http://198.18.0.1:5984")
        #expect(try RemoteEndpoint(url: "https://pi.local:6984/a%2Fb").database == "https://pi.local:6984/a%2Fb")
        #expect(RemoteEndpoint.hostPart("fe80::1%eth0", encoded: nil) == "[fe80::1%25eth0]")
    }
}
