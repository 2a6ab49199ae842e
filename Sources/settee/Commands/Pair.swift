/*
 `settee pair`: a one-time user for another device. Asks the running server (as a
 server admin) to create a `_users` document for a random name and a 128-bit random
 password, limited by its `settee_pairing` member to one database, a time to live and
 a number of client addresses, optionally write-only; then prints the URL a device
 needs (credentials and, with TLS, `#fp=` the certificate's SHA-256 fingerprint) as
 text and as a QR code. `settee replicate` and `[discovery] credentials` take that
 URL as it is. `--list` shows the pairings, `--revoke NAME` deletes one.
*/
internal import ArgumentParser
internal import FoundationEssentials
internal import SetteeJSON
internal import SetteeReplicator

struct Pair: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create a one-time user for another device, and print its URL as text and a QR code.")

    @Option(help: "The database the pairing may use (required unless --list or --revoke).")
    var db: String?

    @Option(help: "How long the pairing lives: 90s, 10m, 2h, 7d.")
    var ttl: String = "10m"

    @Flag(name: .customLong("write-only"), help: "May create documents (a push replication) but not read any.")
    var writeOnly = false

    @Option(help: "How many client addresses may use it (each address that logs in takes one).")
    var uses: Int = 1

    @Option(help: "The server to create it on, with a server admin's credentials (default http://127.0.0.1:$SETTEE_PORT, credentials from SETTEE_ADMIN).")
    var server: String?

    @Option(help: "The host name or address to put in the printed URL (default: this machine's first LAN address).")
    var host: String?

    @Flag(help: "List the pairings and what is left of them.")
    var list = false

    @Option(help: "Delete the pairing with this name.")
    var revoke: String?

    @Flag(help: "Print JSON instead of text and a QR code.")
    var json = false

    func validate() throws {
        if list || revoke != nil { return }
        guard let db, !db.isEmpty else { throw ValidationError("settee pair needs --db NAME (the database the device may use)") }
        guard Self.seconds(ttl) != nil else {
            throw ValidationError("--ttl must be a positive duration up to 365d, such as 90s, 10m, 2h or 7d (got \"\(ttl)\")")
        }
        guard (1...1000).contains(uses) else { throw ValidationError("--uses must be between 1 and 1000") }
    }

    /// `90s`, `10m`, `2h`, `7d` or bare seconds; nil for anything else, zero, or over a year.
    static func seconds(_ text: String) -> Int? {
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        var digits = Substring(text.trimmingBlanks().lowercased())
        var unit = 1
        if let last = digits.last, let factor = units[last] { unit = factor; digits = digits.dropLast() }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let count = Int(digits), count > 0,
              count <= 365 * 86400 / unit else { return nil }
        return count * unit
    }

    func run() async throws {
        let client = try AdminClient(server: server)
        if list { return try await printList(client) }
        if let revoke { return try await delete(revoke, client) }
        try await create(client)
    }

    private func create(_ client: AdminClient) async throws {
        guard let db, let lifetime = Self.seconds(ttl) else { return }
        guard try await client.request("GET", "/" + AdminClient.encode(db)).status == 200 else {
            throw client.fail("no database \(db) on \(client.base) (or the credentials cannot see it)")
        }
        let name = "pair-" + Self.randomHex(bytes: 5)
        let password = Self.randomHex(bytes: 16)  // 128 bits from the system's getrandom(2)
        let expires = Int(Date().timeIntervalSince1970) + lifetime
        let doc: JSONValue = [
            "name": .string(name), "type": "user", "roles": [], "password": .string(password),
            "settee_pairing": ["db": .string(db), "expires": .int(expires), "uses": .int(uses),
                               "write_only": .bool(writeOnly), "clients": []],
        ]
        let created = try await client.request("PUT", "/_users/" + AdminClient.encode("org.couchdb.user:" + name),
                                               body: JSONWriter.serialize(doc))
        guard created.status == 201 || created.status == 202 else {
            throw client.fail("the server refused the pairing user: \(created.status) \(String(decoding: created.body, as: UTF8.self))")
        }
        let welcome = (try? JSONReader.parse(try await client.request("GET", "/").body)) ?? .null
        let url = pairingURL(name: name, password: password, welcome: welcome, client: client)
        let expiry = Date(timeIntervalSince1970: TimeInterval(expires)).formatted(.iso8601)
        if json {
            let out: JSONValue = ["name": .string(name), "url": .string(url), "db": .string(db), "expires": .string(expiry),
                                  "uses": .int(uses), "write_only": .bool(writeOnly)]
            print(String(decoding: JSONWriter.serialize(out), as: UTF8.self))
            return
        }
        let access = writeOnly ? "write-only" : "read and write"
        print("Pairing \(name) for database \(db): \(access), \(uses) client\(uses == 1 ? "" : "s"), until \(expiry).")
        if !url.hasPrefix("https://") {
            StandardStreams.error("settee pair: this server has no TLS ([ssl] enable): the password crosses the network in clear\n")
        }
        print(url)
        print()
        if let code = TerminalQRCode(url) { code.lines.forEach { print($0) } }
        print()
        print("Revoke it with: settee pair --revoke \(name)")
    }

    /// `https://NAME:PASSWORD@HOST:TLSPORT/DB#fp=HEX` with TLS, else the plain URL.
    private func pairingURL(name: String, password: String, welcome: JSONValue, client: AdminClient) -> String {
        let address = host ?? client.lanHost
        let hostPart = address.contains(":") ? "[\(address)]" : address
        let path = "/" + AdminClient.encode(db ?? "")
        if let fingerprint = welcome["settee"]?["tls_fingerprint"]?.stringValue,
           let port = welcome["settee"]?["tls_port"]?.intValue {
            let hex = fingerprint.filter { $0 != ":" }.lowercased()
            return "https://\(name):\(password)@\(hostPart):\(port)\(path)#fp=\(hex)"
        }
        return "http://\(name):\(password)@\(hostPart):\(client.port)\(path)"
    }

    private func printList(_ client: AdminClient) async throws {
        let query = "/_users/_all_docs?include_docs=true&startkey=%22org.couchdb.user%3Apair-%22&endkey=%22org.couchdb.user%3Apair-%EF%BF%B0%22"
        let response = try await client.request("GET", query)
        guard response.status == 200, let rows = (try? JSONReader.parse(response.body))?["rows"]?.arrayValue else {
            throw client.fail("cannot read _users: \(response.status)")
        }
        let now = Int(Date().timeIntervalSince1970)
        var out: [JSONValue] = []
        for row in rows {
            guard let doc = row["doc"], let grant = doc["settee_pairing"], let name = doc["name"]?.stringValue else { continue }
            let expires = grant["expires"]?.intValue ?? 0
            let clients = grant["clients"]?.arrayValue ?? []
            out.append(["name": .string(name), "db": grant["db"] ?? .null,
                        "expires": .string(Date(timeIntervalSince1970: TimeInterval(expires)).formatted(.iso8601)),
                        "expired": .bool(expires <= now), "uses": grant["uses"] ?? .null, "clients": .array(clients),
                        "write_only": grant["write_only"] ?? .null])
        }
        if json { return print(String(decoding: JSONWriter.serialize(.array(out)), as: UTF8.self)) }
        if out.isEmpty { return print("no pairings") }
        for p in out {
            let state = p["expired"] == true ? "expired" : "until \(p["expires"]?.stringValue ?? "")"
            let used = "\(p["clients"]?.arrayValue?.count ?? 0)/\(p["uses"]?.intValue ?? 0) clients"
            print("\(p["name"]?.stringValue ?? "")  \(p["db"]?.stringValue ?? "")  \(p["write_only"] == true ? "write-only" : "read-write")  \(used)  \(state)")
        }
    }

    private func delete(_ name: String, _ client: AdminClient) async throws {
        guard name.hasPrefix("pair-") else { throw client.fail("\(name) is not a pairing (their names start with pair-)") }
        let path = "/_users/" + AdminClient.encode("org.couchdb.user:" + name)
        let current = try await client.request("GET", path)
        guard current.status == 200, let rev = (try? JSONReader.parse(current.body))?["_rev"]?.stringValue else {
            throw client.fail("no pairing \(name)")
        }
        let deleted = try await client.request("DELETE", path + "?rev=" + AdminClient.encode(rev))
        guard deleted.status == 200 || deleted.status == 202 else { throw client.fail("could not delete \(name): \(deleted.status)") }
        print("revoked \(name)")
    }

    static func randomHex(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            return (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }.joined()
    }
}
