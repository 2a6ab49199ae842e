/// What a Settee advertises about itself in its `_couchdb._tcp` TXT record, and what
/// it reads from others'. The profile, for other software to read:
///
///     txtvers=1            this profile's version
///     path=/<db>           one entry per advertised database (repeated key)
///     uuid=<server uuid>   GET /'s uuid: one peer seen on two addresses is one peer
///     tls=1                present when the port speaks TLS
///     fp=<hex SHA-256>     the TLS certificate's fingerprint, when tls=1
public struct PeerProfile: Sendable, Equatable {
    public static let version = "1"

    public var databases: [String]
    public var uuid: String?
    public var tlsFingerprint: String?
    public var usesTLS: Bool

    public init(databases: [String], uuid: String?, usesTLS: Bool = false, tlsFingerprint: String? = nil) {
        self.databases = databases
        self.uuid = uuid
        self.usesTLS = usesTLS
        self.tlsFingerprint = tlsFingerprint
    }

    /// The record to publish. Databases whose entry would not fit are left out
    /// (`TXTRecord.bytes`); the others are still found.
    public var record: TXTRecord {
        var record = TXTRecord()
        record.append("txtvers", Self.version)
        if let uuid { record.append("uuid", uuid) }
        if usesTLS {
            record.append("tls", "1")
            if let tlsFingerprint { record.append("fp", tlsFingerprint) }
        }
        for database in databases { record.append("path", "/" + database) }
        return record
    }

    /// A peer's profile from its record; nil for a record of another version. Paths
    /// that are not `/<name>` are ignored, and so are repeats.
    public init?(_ record: TXTRecord) {
        if let version = record["txtvers"], version != Self.version { return nil }
        var names: [String] = []
        for path in record.values("path") where path.hasPrefix("/") && path.count > 1 {
            let name = String(path.dropFirst())
            if !names.contains(name) { names.append(name) }
        }
        databases = names
        uuid = record["uuid"].flatMap { $0.isEmpty ? nil : $0 }
        usesTLS = record["tls"] == "1"
        tlsFingerprint = usesTLS ? record["fp"] : nil
    }
}
