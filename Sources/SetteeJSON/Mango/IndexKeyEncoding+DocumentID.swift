/*
 The document id at the end of a view's index key, read back: a view's key is the
 emitted key's encoding, then `appendDocumentID` (tag 5, the id as a raw string), then
 the emit's place as a number (tag 4 and 8 bytes). Skipping the emitted key needs only
 its tags (see IndexKeyEncoding): numbers are 8 bytes, a default-collation string is
 ICU's sort key ending with its only 0x00, a raw string ends 0x00 0x00 (0x00 inside it
 is 0x00 0x01), arrays and objects end with 0x00 where a tag or a member's 0x01 would be.
*/
extension IndexKeyEncoding {
    /// The document id that `key`, a view index key made as above, ends with; nil when
    /// `key` is not laid out so. A map query that shows no document reads its rows' ids
    /// from here instead of joining every row to the documents.
    public static func documentID(inViewKey key: [UInt8], collation: KeyCollation) -> String? {
        key.withUnsafeBufferPointer { bytes -> String? in
            var index = 0
            guard skipValue(bytes, &index, raw: collation == .raw), index < bytes.count, bytes[index] == 5 else {
                return nil
            }
            index += 1
            guard let id = rawString(bytes, &index), bytes.count - index == 9, bytes[index] == 4 else { return nil }
            return String(decoding: id, as: UTF8.self)
        }
    }

    /// The same id written at the end of `out` as a JSON string, straight from the key's
    /// bytes: a view query's rows make no `String` and no array for it (with 100 rows a
    /// key, that was a tenth of a point query's CPU). False, `out` untouched, when `key`
    /// is not laid out so.
    public static func writeDocumentID(inViewKey key: [UInt8], collation: KeyCollation,
                                       asJSONStringTo out: inout [UInt8]) -> Bool {
        let span = key.withUnsafeBufferPointer { bytes -> Range<Int>? in
            var index = 0
            guard skipValue(bytes, &index, raw: collation == .raw), index < bytes.count, bytes[index] == 5 else {
                return nil
            }
            let start = index + 1
            index = start
            guard rawString(bytes, &index) != nil, bytes.count - index == 9, bytes[index] == 4 else { return nil }
            return start..<(index - 2)  // without the 0x00 0x00 that ends it
        }
        guard let span else { return false }
        // An id with a byte JSON escapes (a quote, a backslash, a control byte, 0x00
        // encoded as 0x00 0x01) goes through the writer's escaping; others are copied.
        if key[span].contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) {
            guard let id = documentID(inViewKey: key, collation: collation) else { return false }
            JSONWriter.writeString(id, to: &out)
            return true
        }
        out.append(UInt8(ascii: "\""))
        out.append(contentsOf: key[span])
        out.append(UInt8(ascii: "\""))
        return true
    }

    /// Moves `index` past one encoded value; false when the bytes are not one.
    private static func skipValue(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int, raw: Bool) -> Bool {
        guard index < bytes.count else { return false }
        let tag = bytes[index]
        index += 1
        switch (tag, raw) {
        case (1, false), (2, _), (3, _), (4, true): return true  // null, false, true
        case (4, false), (1, true):  // a number's 8 bytes
            index += 8
            return index <= bytes.count
        case (5, false), (7, true): return skipString(bytes, &index, raw: raw)
        case (6, _):  // array: elements, then 0x00
            while index < bytes.count {
                if bytes[index] == 0 { index += 1; return true }
                guard skipValue(bytes, &index, raw: raw) else { return false }
            }
            return false
        case (7, false), (5, true):  // object: per member 0x01, key, value; then 0x00
            while index < bytes.count {
                if bytes[index] == 0 { index += 1; return true }
                guard bytes[index] == 1 else { return false }
                index += 1
                guard skipString(bytes, &index, raw: raw), skipValue(bytes, &index, raw: raw) else { return false }
            }
            return false
        default: return false
        }
    }

    private static func skipString(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int, raw: Bool) -> Bool {
        if raw { return rawString(bytes, &index) != nil }
        while index < bytes.count {
            defer { index += 1 }
            if bytes[index] == 0 { return true }
        }
        return false
    }

    /// A raw string's bytes (0x00 0x01 read as 0x00), `index` moved past its 0x00 0x00.
    private static func rawString(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int) -> [UInt8]? {
        var out: [UInt8] = []
        while index + 1 < bytes.count {
            let byte = bytes[index]
            guard byte == 0 else {
                out.append(byte)
                index += 1
                continue
            }
            let next = bytes[index + 1]
            index += 2
            if next == 0 { return out }
            guard next == 1 else { return nil }
            out.append(0)
        }
        return nil
    }
}
