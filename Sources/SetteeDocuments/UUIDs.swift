/// Random uuids as CouchDB's default `random` algorithm makes them: 32 lowercase hex.
public enum UUIDs {
    public static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        let hex = Array("0123456789abcdef".utf8)
        var bytes = [UInt8](repeating: 0, count: 32)
        for i in 0..<32 { bytes[i] = hex[Int(generator.next() % 16)] }
        return String(decoding: bytes, as: UTF8.self)
    }
}
