import FoundationEssentials
import SetteeJSON
import SetteeStore

extension UserDirectory {
    /// Lets a pairing user in from `remoteAddress`, or says why not: an expired pairing,
    /// or a new client address when every use is taken. A new address within the limit
    /// is recorded in the user's document (so the count survives a restart) before
    /// the request goes on.
    /// - Throws: 401 `unauthorized` naming the reason (the caller has proved the password).
    func admitPairing(name: String, _ grant: PairingGrant, from remoteAddress: String) async throws {
        if grant.isExpired(now: Authenticator.now()) {
            throw CouchError.unauthorized("This pairing has expired.")
        }
        // A client is its address, as the lockout counts clients.
        let host = LoginLockout.address(remoteAddress)
        if grant.clients.contains(host) { return }
        guard grant.clients.count < grant.uses else { throw Self.usedUp(grant) }
        guard let database = try await directory.open(authentication.name) else {
            throw CouchError.unauthorized("Name or password is incorrect.")
        }
        // Two first requests from new addresses may race: the loser re-reads and re-counts.
        let id = "org.couchdb.user:" + name
        for _ in 0..<5 {
            guard let stored = try await database.winner(id: id), !stored.isDeleted,
                  let bytes = stored.body, var doc = (try JSONReader.parse(bytes)).objectValue,
                  let current = PairingGrant(doc[PairingGrant.member]) else {
                throw CouchError.unauthorized("Name or password is incorrect.")
            }
            if current.clients.contains(host) { return }
            guard current.clients.count < current.uses, !current.isExpired(now: Authenticator.now()) else {
                throw Self.usedUp(current)
            }
            let claimed = PairingGrant(database: current.database, expires: current.expires, uses: current.uses,
                                       writeOnly: current.writeOnly, clients: current.clients + [host])
            doc.removeAll { $0.key == PairingGrant.member }
            doc.append(PairingGrant.member, claimed.json)
            let update = DocumentUpdate(id: id, body: JSONWriter.serialize(.object(doc)), baseRevision: stored.rev)
            // The node records the claim itself, before any requester identity exists.
            let results = try await WriteContext.$writer.withValue(.system) { try await database.update([update], newEdits: true) }
            if case .success = results.first { return }
        }
        throw CouchError(409, "conflict", "The pairing is being claimed; try again.")
    }

    private static func usedUp(_ grant: PairingGrant) -> CouchError {
        CouchError.unauthorized("This pairing has been used by as many clients as it allows (\(grant.uses)).")
    }
}
