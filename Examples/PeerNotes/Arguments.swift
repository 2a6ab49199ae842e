import Foundation

/// What `peernotes` is started with.
struct Arguments {
    /// The data directory (created when missing).
    var dataDirectory = "peernotes-data"
    /// The DNS-SD instance name (default: PeerNotes on HOST).
    var name: String?
    var port = 0
    var address = "0.0.0.0"
    /// HTTPS with the directory's self-signed certificate; peers are trusted by the
    /// fingerprint they advertise (they must still know the secret).
    var usesTLS = false
    /// `name:password` shared by the copies that sync (`--secret` or PEERNOTES_SECRET).
    var secret: String?

    static let usage = """
        usage: PEERNOTES_SECRET=name:password peernotes [--data DIR] [--name NAME] [--port N] [--bind ADDR] [--tls]
          --data DIR     where the notes are kept (default ./peernotes-data)
          --name NAME    the name other copies see (default: PeerNotes on HOST)
          --port N       the port to sync on (default: any free one)
          --bind ADDR    the address to listen on (default 0.0.0.0)
          --tls          sync over HTTPS (a self-signed certificate kept in DIR)
          --secret S     instead of PEERNOTES_SECRET: the name:password every copy shares
        Copies of PeerNotes on the LAN with the same secret find each other and sync.
        """

    /// Parses `arguments` (without the program name).
    /// - Throws: `CommandError` naming what is wrong.
    static func parse(_ arguments: [String], environment: [String: String]) throws(CommandError) -> Arguments {
        var result = Arguments()
        result.secret = environment["PEERNOTES_SECRET"]
        var remaining = arguments[...]
        while let flag = remaining.popFirst() {
            if flag == "--tls" {
                result.usesTLS = true
                continue
            }
            guard let value = remaining.popFirst() else { throw CommandError("\(flag) needs a value") }
            switch flag {
            case "--data": result.dataDirectory = value
            case "--name": result.name = value
            case "--bind": result.address = value
            case "--secret": result.secret = value
            case "--port":
                guard let port = Int(value), (0...65535).contains(port) else { throw CommandError("bad port \(value)") }
                result.port = port
            default: throw CommandError("unknown option \(flag)")
            }
        }
        guard let secret = result.secret, let colon = secret.firstIndex(of: ":"), colon != secret.startIndex,
              secret.index(after: colon) != secret.endIndex else {
            throw CommandError("set PEERNOTES_SECRET (or --secret) to name:password, the same on every copy")
        }
        return result
    }

    /// The secret as admin name and password (parse checked it has both).
    var admin: (name: String, password: String) {
        let parts = (secret ?? "").split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        return (parts.first.map(String.init) ?? "", parts.count > 1 ? String(parts[1]) : "")
    }
}
