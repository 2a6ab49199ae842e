@testable import SetteeReplicator
import SetteeJSON
import Testing

/// `open_revs` multipart replies (CouchDB 3.4.3's framing, pull transcript line 10).
@Suite struct OpenRevsReplyTests {
    static func body(_ parts: [(type: String, json: String)]) -> [UInt8] {
        var out = ""
        for part in parts { out += "--b\r\nContent-Type: \(part.type)\r\n\r\n\(part.json)\r\n" }
        return Array((out + "--b--").utf8)
    }

    @Test func aDocumentWithAFieldNamedMissingIsADocument() throws {
        let found = try OpenRevsReply.parse(Self.body([("application/json", #"{"_id":"a","_rev":"1-x","missing":true}"#)]),
                                            contentType: "multipart/mixed; boundary=\"b\"", maxAttachmentBytes: 1 << 20)
        #expect(found.count == 1 && found[0].json["missing"]?.boolValue == true)
    }

    @Test func aMissingRevisionIsAnErrorPart() {
        #expect(throws: OpenRevsReply.Missing.self) {
            _ = try OpenRevsReply.parse(Self.body([("application/json; error=\"true\"", #"{"missing":"1-x"}"#)]),
                                        contentType: "multipart/mixed; boundary=\"b\"", maxAttachmentBytes: 1 << 20)
        }
    }
}
