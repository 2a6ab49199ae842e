/// `GET /{db}`'s figures.
public struct DatabaseInfo: Sendable {
    public var name: String
    public var docCount: Int
    public var deletedDocCount: Int
    public var updateSeq: Int64
    public var purgeSeq: Int64
    /// Bytes of the database file(s) on disk.
    public var fileSize: Int64
    /// Bytes in use by live data.
    public var activeSize: Int64
    /// Uncompressed size of live documents and attachments.
    public var externalSize: Int64
    public var isCompacting: Bool
    /// The `q` the database was created with (1 when none was given).
    public var shardCount: Int
    /// Why the database is read-only (`DatabaseDamage`), or nil while it is sound.
    public var damage: String?

    public init(name: String, docCount: Int, deletedDocCount: Int, updateSeq: Int64, purgeSeq: Int64,
                fileSize: Int64, activeSize: Int64, externalSize: Int64, isCompacting: Bool, shardCount: Int = 1,
                damage: String? = nil) {
        self.name = name
        self.docCount = docCount
        self.deletedDocCount = deletedDocCount
        self.updateSeq = updateSeq
        self.purgeSeq = purgeSeq
        self.fileSize = fileSize
        self.activeSize = activeSize
        self.externalSize = externalSize
        self.isCompacting = isCompacting
        self.shardCount = shardCount
        self.damage = damage
    }
}
