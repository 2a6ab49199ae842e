internal import Crypto

/// Derives new revision ids deterministically, so the same edit made on two
/// peers gives the same rev and no false conflict (spec/couchdb.md "Revisions").
enum RevisionHasher {
    /// `generation + 1` and the lowercase hex MD5 of the parent rev, the deleted
    /// flag and the body bytes, each part length-delimited so no two inputs collide.
    /// Attachments add their names and digests (in order), so changing only an
    /// attachment still gives a new rev; without attachments the hash is unchanged.
    static func child(of parent: RevisionID?, isDeleted: Bool, body: [UInt8],
                      attachments: [StoredAttachment] = []) -> RevisionID {
        var md5 = Insecure.MD5()
        let parentText = Array((parent?.description ?? "").utf8)
        md5.update(data: [UInt8(truncatingIfNeeded: parentText.count)] + parentText)
        md5.update(data: [isDeleted ? 1 : 0])
        md5.update(data: body)
        for attachment in attachments {
            let name = Array(attachment.name.utf8)
            md5.update(data: withUnsafeBytes(of: UInt32(name.count).bigEndian, Array.init) + name)
            md5.update(data: attachment.digest.md5)
        }
        return RevisionID(generation: (parent?.generation ?? 0) + 1, suffix: hex(md5.finalize()))
    }

    /// Lowercase hex, written into one buffer: this runs for every document written.
    private static func hex(_ digest: some Sequence<UInt8>) -> String {
        let digits: StaticString = "0123456789abcdef"
        var text: [UInt8] = []
        text.reserveCapacity(32)
        digits.withUTF8Buffer { digits in
            for byte in digest {
                text.append(digits[Int(byte >> 4)])
                text.append(digits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: text, as: UTF8.self)
    }
}
