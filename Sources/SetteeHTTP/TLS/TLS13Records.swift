/// The server's TLS 1.3 record layer once OpenSSL has finished the handshake: what the
/// kernel's TLS offload does, in user space. OpenSSL 3.0 spends about three times the
/// AES-GCM work on its own bookkeeping per record (error queue, parameter lookups,
/// state machine), which on keep-alive GETs was most of what HTTPS cost over HTTP
/// (bench/tls). The handshake, certificates and every cryptographic primitive stay
/// OpenSSL's; this frames records (RFC 8446 §5), keeps sequence numbers, and handles
/// what a client may send after the handshake: application data, alerts, KeyUpdate.
///
/// Not thread-safe: `TLS13RecordTransport` calls it under its lock.
final class TLS13Records {
    /// What the next `open` produced.
    enum Opened {
        case data([UInt8])
        /// No whole record is buffered: read more ciphertext.
        case needsMore
        /// The client sent close_notify.
        case closed
    }

    /// The connection must end; `alert` is the description to send first, if any.
    struct Failure: Error {
        let alert: UInt8?
    }

    /// Alert descriptions (§6).
    enum Alert {
        static let closeNotify: UInt8 = 0
        static let unexpectedMessage: UInt8 = 10
        static let badRecordMAC: UInt8 = 20
        static let recordOverflow: UInt8 = 22
        static let illegalParameter: UInt8 = 47
        static let decodeError: UInt8 = 50
        static let userCanceled: UInt8 = 90
    }

    enum ContentType {
        static let alert: UInt8 = 21
        static let handshake: UInt8 = 22
        static let applicationData: UInt8 = 23
    }

    static let maxPlaintext = 16 * 1024
    private static let maxCiphertext = maxPlaintext + 256
    private static let keyUpdateMessage: UInt8 = 24
    /// Records sealed under one key before this side moves to the next one, well below
    /// AES-GCM's limit of 2^24.5 full records (§5.5).
    static let defaultRecordsPerKey: UInt64 = 1 << 24
    private let recordsPerKey: UInt64

    private var readKey: TLS13TrafficKey
    private var writeKey: TLS13TrafficKey
    /// The client asked for a KeyUpdate; ours goes before the next record we send (§4.6.3).
    private var owesKeyUpdate = false
    /// Ciphertext received and not yet opened, from `inboxStart`.
    private var inbox: [UInt8] = []
    private var inboxStart = 0
    /// Plaintext of the last record beyond what the last `open` could return.
    private var leftover: ArraySlice<UInt8> = []
    /// The start of a handshake message whose rest is in the next records (§5.1 lets a
    /// peer fragment one over several; tlslite-ng and OpenSSL's tests do).
    private var handshakeBuffer: [UInt8] = []

    init(readKey: TLS13TrafficKey, writeKey: TLS13TrafficKey, recordsPerKey: UInt64 = defaultRecordsPerKey) {
        self.readKey = readKey
        self.writeKey = writeKey
        self.recordsPerKey = recordsPerKey
    }

    /// Appends ciphertext read from the socket.
    func receive(_ bytes: [UInt8]) {
        if inboxStart == inbox.count {
            inbox = bytes
        } else {
            inbox.removeFirst(inboxStart)
            inbox.append(contentsOf: bytes)
        }
        inboxStart = 0
    }

    /// Up to `maxBytes` of application data, opening buffered records as needed.
    /// - Throws: `Failure` for anything a client may not send: the connection ends.
    func open(maxBytes: Int) throws(Failure) -> Opened {
        if !leftover.isEmpty {
            let part = leftover.prefix(maxBytes)
            leftover = leftover.dropFirst(part.count)
            return .data(Array(part))
        }
        while true {
            guard let (type, content) = try openRecord() else { return .needsMore }
            // "When Handshake messages are being fragmented, they MUST NOT be interleaved
            // with other record types" (§5.1).
            guard handshakeBuffer.isEmpty || type == ContentType.handshake else {
                throw Failure(alert: Alert.unexpectedMessage)
            }
            switch type {
            case ContentType.applicationData:
                if content.isEmpty { continue }  // allowed, and means nothing
                if content.count <= maxBytes { return .data(content) }
                leftover = content[maxBytes...]
                return .data(Array(content[..<maxBytes]))
            case ContentType.alert:
                // An empty alert record is no alert at all: OpenSSL answers unexpected_message.
                guard !content.isEmpty else { throw Failure(alert: Alert.unexpectedMessage) }
                guard content.count == 2 else { throw Failure(alert: Alert.decodeError) }
                switch content[1] {
                case Alert.closeNotify: return .closed
                case Alert.userCanceled: continue  // a close_notify follows
                default: throw Failure(alert: nil)  // the client's fatal alert: nothing to answer
                }
            case ContentType.handshake:
                try handleHandshake(content)
            default:
                throw Failure(alert: Alert.unexpectedMessage)
            }
        }
    }

    /// The next whole record's content type and content, decrypted; nil until one is buffered.
    private func openRecord() throws(Failure) -> (UInt8, [UInt8])? {
        let available = inbox.count - inboxStart
        guard available >= TLS13TrafficKey.headerLength else { return nil }
        let type = inbox[inboxStart]
        let length = Int(inbox[inboxStart + 3]) << 8 | Int(inbox[inboxStart + 4])
        // After the handshake every record is protected and says application_data outside.
        guard type == ContentType.applicationData else { throw Failure(alert: Alert.unexpectedMessage) }
        guard length <= Self.maxCiphertext else { throw Failure(alert: Alert.recordOverflow) }
        guard length > TLS13TrafficKey.tagLength else { throw Failure(alert: Alert.badRecordMAC) }
        guard available >= TLS13TrafficKey.headerLength + length else { return nil }
        let start = inboxStart
        let key = readKey
        var plaintext = [UInt8](unsafeUninitializedCapacity: length - TLS13TrafficKey.tagLength) { out, count in
            let opened = inbox.withUnsafeBytes { raw in
                key.open(header: UnsafeRawBufferPointer(rebasing: raw[start..<start + TLS13TrafficKey.headerLength]),
                         body: UnsafeRawBufferPointer(rebasing: raw[(start + TLS13TrafficKey.headerLength)...]
                             .prefix(length)),
                         into: UnsafeMutableRawBufferPointer(out))
            }
            count = opened ? out.count : 0
        }
        guard !plaintext.isEmpty else { throw Failure(alert: Alert.badRecordMAC) }
        inboxStart += TLS13TrafficKey.headerLength + length
        if inboxStart == inbox.count {
            inbox = []
            inboxStart = 0
        }
        // TLSInnerPlaintext: content, its type, then zero padding (§5.4), 2^14 + 1 bytes
        // at most with its padding.
        guard plaintext.count <= Self.maxPlaintext + 1 else { throw Failure(alert: Alert.recordOverflow) }
        guard let typeIndex = plaintext.lastIndex(where: { $0 != 0 }) else {
            throw Failure(alert: Alert.unexpectedMessage)
        }
        let innerType = plaintext[typeIndex]
        plaintext.removeSubrange(typeIndex...)
        return (innerType, plaintext)
    }

    /// Handshake messages after the handshake: only KeyUpdate is one a server that never
    /// asks for post-handshake authentication can get. A message may come in fragments
    /// over several records, but a key change must end its record (§5.1), and records
    /// of the handshake type are never empty.
    private func handleHandshake(_ content: [UInt8]) throws(Failure) {
        guard !content.isEmpty else { throw Failure(alert: Alert.unexpectedMessage) }
        handshakeBuffer += content
        guard handshakeBuffer[0] == Self.keyUpdateMessage else { throw Failure(alert: Alert.unexpectedMessage) }
        guard handshakeBuffer.count >= 4 else { return }
        guard handshakeBuffer[1] == 0, handshakeBuffer[2] == 0, handshakeBuffer[3] == 1 else {
            throw Failure(alert: Alert.decodeError)
        }
        guard handshakeBuffer.count >= 5 else { return }
        guard handshakeBuffer.count == 5 else { throw Failure(alert: Alert.unexpectedMessage) }
        let request = handshakeBuffer[4]
        handshakeBuffer = []
        guard request <= 1 else { throw Failure(alert: Alert.illegalParameter) }
        guard let next = readKey.updated(sealing: false) else { throw Failure(alert: nil) }
        readKey = next
        if request == 1 { owesKeyUpdate = true }
    }

    /// The KeyUpdate a client asked for, sealed, and the write key moved past it; nil when
    /// none is owed (or sealing failed: the next `seal` fails too then).
    func sealOwedKeyUpdate() -> [UInt8]? {
        guard owesKeyUpdate else { return nil }
        return [UInt8]().withUnsafeBytes { seal($0) }
    }

    /// `bytes` as application data records, after a KeyUpdate of ours when one is due;
    /// nil when sealing failed (the connection must end).
    func seal(_ bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        var keyUpdate: [UInt8] = []
        if owesKeyUpdate || writeKey.sequence >= recordsPerKey {
            let message: [UInt8] = [Self.keyUpdateMessage, 0, 0, 1, 0]  // update_not_requested
            guard let record = message.withUnsafeBytes({ sealRecords([($0, ContentType.handshake)]) }),
                  let next = writeKey.updated(sealing: true) else { return nil }
            writeKey = next
            owesKeyUpdate = false
            keyUpdate = record
        }
        let chunks = stride(from: 0, to: bytes.count, by: Self.maxPlaintext).map { start in
            (UnsafeRawBufferPointer(rebasing: bytes[start..<min(start + Self.maxPlaintext, bytes.count)]),
             ContentType.applicationData)
        }
        guard let data = sealRecords(chunks) else { return nil }
        return keyUpdate.isEmpty ? data : keyUpdate + data
    }

    /// An alert record: close_notify, or the fatal alert a `Failure` names.
    func sealAlert(_ description: UInt8) -> [UInt8]? {
        let content: [UInt8] = [description == Alert.closeNotify ? 1 : 2, description]  // level, description
        return content.withUnsafeBytes { sealRecords([($0, ContentType.alert)]) }
    }

    /// One record per piece (its content and content type), in order, in one buffer.
    func sealRecords(_ pieces: [(UnsafeRawBufferPointer, UInt8)]) -> [UInt8]? {
        let overhead = TLS13TrafficKey.headerLength + 1 + TLS13TrafficKey.tagLength
        let total = pieces.reduce(0) { $0 + overhead + $1.0.count }
        var sealedAll = true
        let sealed = [UInt8](unsafeUninitializedCapacity: total) { out, count in
            var offset = 0
            for (content, type) in pieces where sealedAll {
                let end = offset + overhead + content.count
                sealedAll = writeKey.seal(content, type: type,
                                          into: UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(out)[offset..<end]))
                offset = end
            }
            count = sealedAll ? total : 0
        }
        return sealedAll ? sealed : nil
    }
}
