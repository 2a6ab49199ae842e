// libFuzzer target `tlsrecords`, compiled with SetteeHTTP's TLS 1.3 record layer
// (TLS13Records, TLS13TrafficKey, OpenSSL's libcrypto for AES-GCM and HMAC) by fuzz/run.
//
// After the handshake every byte a client sends goes through TLS13Records before
// anything else reads it. The keys come from fixed traffic secrets, so an input is
// either raw bytes for `receive`/`open` (first byte even) or records sealed with the
// client's key (first byte odd: application data, alerts, handshake fragments such
// as KeyUpdate, other types; each possibly replayed or put before the one it
// follows) with then one byte altered. On any input the record layer must not trap;
// what it opens cannot depend on how the bytes were cut into reads or how much
// `open` was asked for; and while the connection stands, what the server seals next
// (after the KeyUpdate a client asked for) opens at the client.

/// What a server made of a stream of bytes.
private struct Outcome: Equatable {
    var data: [UInt8] = []
    /// "open" while the connection stands, else "closed" or the alert it ended with.
    var end = "open"
}

private struct Keys {
    let suite: TLS13TrafficKey.Suite
    var clientSecret: [UInt8] { [UInt8](repeating: 0x43, count: suite == .aes128GCMSHA256 ? 32 : 48) }
    var serverSecret: [UInt8] { [UInt8](repeating: 0x53, count: suite == .aes128GCMSHA256 ? 32 : 48) }

    /// Each suite's four keys, derived once: deriving them for every input was 40 % of an
    /// input's cost. Every use takes a copy at sequence 0 (libFuzzer runs inputs on one thread).
    private nonisolated(unsafe) static var derived: [TLS13TrafficKey.Suite: [TLS13TrafficKey]] = [:]

    /// The client's sealing key, the server's opening key, the server's sealing key and the
    /// client's opening key, in that order.
    private func keys() -> [TLS13TrafficKey]? {
        if let keys = Self.derived[suite] { return keys }
        guard let clientSeal = TLS13TrafficKey(secret: clientSecret, suite: suite, sealing: true),
              let serverOpen = TLS13TrafficKey(secret: clientSecret, suite: suite, sealing: false),
              let serverSeal = TLS13TrafficKey(secret: serverSecret, suite: suite, sealing: true),
              let clientOpen = TLS13TrafficKey(secret: serverSecret, suite: suite, sealing: false) else { return nil }
        Self.derived[suite] = [clientSeal, serverOpen, serverSeal, clientOpen]
        return Self.derived[suite]
    }

    func clientSealing() -> TLS13TrafficKey? { keys()?[0].copy() }

    func server() -> TLS13Records? {
        guard let keys = keys(), let read = keys[1].copy(), let write = keys[2].copy() else { return nil }
        return TLS13Records(readKey: read, writeKey: write)
    }

    func client() -> TLS13Records? {
        guard let keys = keys(), let read = keys[3].copy(), let write = keys[0].copy() else { return nil }
        return TLS13Records(readKey: read, writeKey: write)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTLSRecords(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let first = bytes.first else { return 0 }
    let keys = Keys(suite: first & 2 == 0 ? .aes128GCMSHA256 : .aes256GCMSHA384)
    let rest = bytes.dropFirst()
    guard let wire = first & 1 == 0 ? Array(rest) : sealedWire(rest, keys) else { return 0 }
    guard let (whole, server) = drain(wire, pieceSize: max(wire.count, 1), maxBytes: Int.max, keys),
          let (pieces, _) = drain(wire, pieceSize: 1 + Int(first >> 2), maxBytes: 1 + Int(first >> 4), keys)
    else { return 0 }
    precondition(whole == pieces, "records opened differently read in pieces: \(whole) against \(pieces)")
    if whole.end == "open" { answerOpens(server, keys) }
    return 0
}

/// Feeds `wire` to a fresh server `pieceSize` bytes at a time, opening all it can after each.
private func drain(_ wire: [UInt8], pieceSize: Int, maxBytes: Int, _ keys: Keys) -> (Outcome, TLS13Records)? {
    guard let server = keys.server() else { return nil }
    var outcome = Outcome()
    var start = 0
    repeat {
        let end = min(start + pieceSize, wire.count)
        server.receive(Array(wire[start..<end]))
        start = end
        while true {
            let opened: TLS13Records.Opened
            do {
                opened = try server.open(maxBytes: maxBytes)
            } catch {
                outcome.end = "alert \(error.alert.map(String.init) ?? "none")"
                return (outcome, server)
            }
            switch opened {
            case .data(let bytes):
                precondition(!bytes.isEmpty && bytes.count <= maxBytes, "open returned \(bytes.count) bytes")
                outcome.data += bytes
            case .needsMore:
                break
            case .closed:
                outcome.end = "closed"
                return (outcome, server)
            }
            guard case .data = opened else { break }
        }
    } while start < wire.count
    return (outcome, server)
}

/// The server's next records (its owed KeyUpdate, then data) must open at a client that
/// followed every KeyUpdate of the server's.
private func answerOpens(_ server: TLS13Records, _ keys: Keys) {
    let reply: [UInt8] = Array("HTTP/1.1 200 OK\r\n\r\n".utf8)
    guard let client = keys.client(), let sealed = reply.withUnsafeBytes({ server.seal($0) }) else { return }
    client.receive(sealed)
    guard case .data(let opened)? = try? client.open(maxBytes: Int.max) else {
        preconditionFailure("the client could not open the server's reply")
    }
    precondition(opened == reply, "the server's reply opened as \(opened)")
}

/// Records the client seals from `spec`: per record a control byte (bits 0-1: application
/// data, alert, handshake or the type in the next byte; bit 2: sent twice; bit 3: sent
/// before the record it follows), a length byte and the content. The first two bytes
/// say where one byte of the result is altered and by what (0: none).
private func sealedWire(_ spec: ArraySlice<UInt8>, _ keys: Keys) -> [UInt8]? {
    guard spec.count >= 2,
          var client = keys.clientSealing() else { return nil }
    var reader = spec.dropFirst(2)
    var records: [[UInt8]] = []
    var handshake: [UInt8] = []
    while let control = reader.popFirst() {
        let types: [UInt8] = [TLS13Records.ContentType.applicationData, TLS13Records.ContentType.alert,
                              TLS13Records.ContentType.handshake]
        let type = control & 3 < 3 ? types[Int(control & 3)] : reader.popFirst() ?? 0
        let length = Int(reader.popFirst() ?? 0)
        let content = Array(reader.prefix(length))
        reader = reader.dropFirst(content.count)
        var record = [UInt8](repeating: 0, count: TLS13TrafficKey.headerLength + content.count + 1 + TLS13TrafficKey.tagLength)
        guard content.withUnsafeBytes({ plain in
            record.withUnsafeMutableBytes { client.seal(plain, type: type, into: $0) }
        }) else { return nil }
        if type == TLS13Records.ContentType.handshake {
            handshake += content
            // The client's own key moves on once its KeyUpdate is whole (RFC 8446 §4.6.3).
            if handshake.count >= 5 {
                if handshake.starts(with: [24, 0, 0, 1]) {
                    guard let next = client.updated(sealing: true) else { return nil }
                    client = next
                }
                handshake = []
            }
        }
        if control & 8 != 0, let previous = records.popLast() {
            records += [record, previous]
        } else {
            records.append(record)
        }
        if control & 4 != 0 { records.append(record) }
    }
    var wire = records.flatMap { $0 }
    let at = Int(spec[spec.startIndex]), change = spec[spec.startIndex + 1]
    if change != 0, !wire.isEmpty { wire[at % wire.count] ^= change }
    return wire
}
