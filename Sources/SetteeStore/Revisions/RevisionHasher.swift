internal import Crypto
internal import SetteeJSON

/// Derives new revision ids as Apache CouchDB does (couch_db:new_revid/1), so the same
/// edit made on a Settee and on a CouchDB — or on two Settees — gives the same rev and no
/// false conflict: `generation + 1` and the lowercase hex MD5 of
/// `term_to_binary([Deleted, OldStart, OldRev, Body, Atts], [{minor_version, 1}])`, where
/// `OldStart`/`OldRev` are the parent's generation and id (0 and 0 for none; a 32-digit
/// hex id as its 16 bytes), `Body` the document without its `_` members as jiffy decodes
/// it (`ExternalTermEncoder`), and `Atts` its attachments' `{Name, Type, MD5}` in reverse
/// order (the fold that builds the list reverses it).
///
/// The body's member order counts, as in CouchDB: the same members sent in another order
/// are another edit, with another rev.
enum RevisionHasher {
    static func child(of parent: RevisionID?, isDeleted: Bool, body: [UInt8],
                      attachments: [StoredAttachment] = []) -> RevisionID {
        var term = ExternalTermEncoder()
        term.list(count: 5) { term in
            term.boolean(isDeleted)
            term.integer(Int64(parent?.generation ?? 0))
            if let parent { term.binary(Self.storedForm(of: parent.suffix)) } else { term.integer(0) }
            // Bodies reach the store as JSON this process wrote or checked; were one not, the
            // parsed value's term is written instead, the same term the text gives.
            let mark = term.bytes.count
            if !term.json(text: body) {
                term.bytes.removeSubrange(mark...)
                term.json((try? JSONReader.parse(body)) ?? .object([:]))
            }
            term.list(count: attachments.count) { term in
                for attachment in attachments.reversed() {
                    term.tupleHeader(arity: 3)
                    term.binary(attachment.name.utf8)
                    term.binary(attachment.contentType.utf8)
                    term.binary(attachment.digest.md5)
                }
            }
        }
        var md5 = Insecure.MD5()
        md5.update(data: term.bytes)
        return RevisionID(generation: (parent?.generation ?? 0) + 1, suffix: hex(md5.finalize()))
    }

    /// A revision id as CouchDB keeps it (couch_doc:parse_revid/1): 32 hex digits as the
    /// 16 bytes they spell, anything else as its own bytes.
    static func storedForm(of suffix: String) -> [UInt8] {
        let digits = Array(suffix.utf8)
        guard digits.count == 32 else { return digits }
        var out: [UInt8] = []
        out.reserveCapacity(16)
        for pair in stride(from: 0, to: 32, by: 2) {
            guard let high = nibble(digits[pair]), let low = nibble(digits[pair + 1]) else { return digits }
            out.append(high << 4 | low)
        }
        return out
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case 48...57: digit - 48
        case 97...102: digit - 87
        case 65...70: digit - 55
        default: nil
        }
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
