public import SetteeJSON

/*
 A document read from its members' spans in text `JSONValidator` accepted, with no value
 tree built for it: only the special members' values are parsed (`_id`, `_rev`,
 `_revisions`, `_deleted`, `_attachments`), and the body is made of the other members'
 bytes, copied when compact, as `body(of:raw:)` makes it. Same checks, same order, same
 errors, same stored bytes as `parse(_:id:newEdits:raw:)` of the parsed object
 (ReplicatedBatchTests compares the two on generated documents). The text must repeat
 no key in any object (`JSONValidator.isValidWithDistinctKeys`): the value path keeps a
 repeated key's last member, as CouchDB does, which spans copied as written would not. A
 key is special when its first byte *decoded* is `_` (`"\u005fid"` is `_id`).
 */
extension DocumentParser {
    /// Parses the document whose members are `spans` in `text` as `parse(_:id:newEdits:raw:)`
    /// parses the object they make.
    /// - Throws: `DocumentError` as that function does; `JSONError` only if `text` was not
    ///   valid JSON (the caller checks it first).
    public func parse(text: UnsafeBufferPointer<UInt8>, members spans: [JSONMemberSpan], newEdits: Bool) throws -> Parsed {
        let special = try Self.specialMembers(text: text, spans: spans)
        return try parse(special, id: nil, newEdits: newEdits) { Self.body(text: text, spans: spans) }
    }

    /// `specialMembers(of:)` for members given by their spans.
    static func specialMembers(text: UnsafeBufferPointer<UInt8>, spans: [JSONMemberSpan]) throws -> SpecialMembers {
        var special = SpecialMembers()
        for span in spans {
            guard let key = try specialKey(text, span) else { continue }
            func value() throws -> JSONValue { try Self.value(text, span) }
            switch key {
            case "_id": if special.id == nil { special.id = try value() }
            case "_rev": if special.rev == nil { special.rev = try value() }
            case "_deleted": if special.deleted == nil { special.deleted = try value() }
            case "_revisions":
                guard special.revisions == nil, special.history == nil else { break }
                let written = UnsafeBufferPointer(rebasing: text[span.valueStart..<span.range.upperBound])
                if let history = compactHistory(written) { special.history = history } else { special.revisions = try value() }
            case "_attachments": if special.attachments == nil { special.attachments = try value() }
            case let key where specialFields.contains(key) || keptSpecialFields.contains(key): break
            default: throw DocumentError.badSpecialMember(key)
            }
        }
        return special
    }

    /// The first `_id` member's value, if it is a string: what `_bulk_docs` checks for
    /// `_local/` before it parses any document.
    public static func firstID(text: UnsafeBufferPointer<UInt8>, spans: [JSONMemberSpan]) throws -> String? {
        for span in spans where try specialKey(text, span) == "_id" { return try value(text, span).stringValue }
        return nil
    }

    /// The body: every member but the specials not kept, as `body(of:raw:)` writes it.
    static func body(text: UnsafeBufferPointer<UInt8>, spans: [JSONMemberSpan]) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "{")]
        out.reserveCapacity(spans.reduce(2) { $0 + $1.range.count + 1 })
        for span in spans {
            let key = plainKey(text, span)
            let isBody: Bool
            if let key, key.first != UInt8(ascii: "_") {
                isBody = true
            } else {
                guard let decoded = try? decodedKey(text, span) else { continue }
                isBody = isBodyMember(decoded)
            }
            guard isBody else { continue }
            if out.count > 1 { out.append(UInt8(ascii: ",")) }
            if span.isCompact {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: text[span.range]))
            } else if let decoded = try? decodedKey(text, span), let value = try? value(text, span) {
                JSONWriter.writeString(decoded, to: &out)
                out.append(UInt8(ascii: ":"))
                JSONWriter.write(value, to: &out)
            }
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// The key's name when it starts with the byte `_` decoded, else nil (no string made).
    private static func specialKey(_ text: UnsafeBufferPointer<UInt8>, _ span: JSONMemberSpan) throws -> String? {
        if let key = plainKey(text, span) {
            guard key.first == UInt8(ascii: "_") else { return nil }
            return String(decoding: key, as: UTF8.self)
        }
        let key = try decodedKey(text, span)
        return isSpecial(key) ? key : nil
    }

    /// The key's bytes between its quotes when it has no escape (then they are its
    /// decoded UTF-8, already validated); nil when it has one.
    private static func plainKey(_ text: UnsafeBufferPointer<UInt8>, _ span: JSONMemberSpan)
        -> UnsafeBufferPointer<UInt8>?
    {
        let start = span.range.lowerBound + 1
        var end = start
        while end < span.valueStart {
            switch text[end] {
            case UInt8(ascii: "\""): return UnsafeBufferPointer(rebasing: text[start..<end])
            case UInt8(ascii: "\\"): return nil
            default: end += 1
            }
        }
        return nil
    }

    /// The key decoded, as the reader decodes it.
    private static func decodedKey(_ text: UnsafeBufferPointer<UInt8>, _ span: JSONMemberSpan) throws -> String {
        var end = span.valueStart - 1  // the `:`, after the key's closing quote and any white space
        while end > span.range.lowerBound, text[end] != UInt8(ascii: "\"") { end -= 1 }
        let key = UnsafeBufferPointer(rebasing: text[span.range.lowerBound..<(end + 1)])
        guard let string = try JSONReader.parse(key, maxDepth: .max).stringValue else {
            throw JSONError(.unexpectedByte(text[span.range.lowerBound]), at: span.range.lowerBound)
        }
        return string
    }

    /// The member's value parsed from its span.
    private static func value(_ text: UnsafeBufferPointer<UInt8>, _ span: JSONMemberSpan) throws -> JSONValue {
        try JSONReader.parse(UnsafeBufferPointer(rebasing: text[span.valueStart..<span.range.upperBound]), maxDepth: .max)
    }
}
