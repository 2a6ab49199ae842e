/// Why bytes could not be read as JSON. `offset` is the byte where reading stopped.
public struct JSONError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        case unexpectedEnd
        case unexpectedByte(UInt8)
        case invalidNumber
        case invalidEscape
        case invalidUTF8
        case tooDeep(limit: Int)
        case trailingBytes
    }

    public let kind: Kind
    public let offset: Int

    public init(_ kind: Kind, at offset: Int) {
        self.kind = kind
        self.offset = offset
    }

    public var description: String {
        switch kind {
        case .unexpectedEnd: "unexpected end of JSON at byte \(offset)"
        case .unexpectedByte(let b): "unexpected byte 0x\(String(b, radix: 16)) at byte \(offset)"
        case .invalidNumber: "invalid number at byte \(offset)"
        case .invalidEscape: "invalid escape at byte \(offset)"
        case .invalidUTF8: "invalid UTF-8 at byte \(offset)"
        case .tooDeep(let limit): "JSON nested deeper than \(limit) levels at byte \(offset)"
        case .trailingBytes: "unexpected data after the JSON value at byte \(offset)"
        }
    }
}
