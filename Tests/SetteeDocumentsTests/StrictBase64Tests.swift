@testable import SetteeDocuments
import Testing

/// `StrictBase64` accepts and refuses what CouchDB 3.4.3 (Erlang's base64:decode/1) does for an
/// attachment's inline `data`, each case checked against it (attachments_test.exs).
@Suite struct StrictBase64Tests {
    @Test(arguments: ["aGVsbG8=", "aGVs bG8=", "aGVs\nbG8=", "aGVsbG8h", "ab==", "abc=", ""])
    func acceptsWhatCouchDBAccepts(_ text: String) {
        #expect(StrictBase64.decode(text) != nil)
    }

    @Test(arguments: ["aGVsbG8", "aGVsbG8==", "aGVsbG8=x", "notBase64Encoded=", "aGVsbG8h=", "aGVsbG8h====",
                      "a", "ab", "abc", "=", "aG=sbG8h", "_-8="])
    func refusesWhatCouchDBRefuses(_ text: String) {
        #expect(StrictBase64.decode(text) == nil)
    }

    @Test func decodesTheBytes() {
        #expect(StrictBase64.decode("aGVs bG8=") == Array("hello".utf8))
        #expect(StrictBase64.decode("") == [])
    }
}
