internal import ArgumentParser
internal import FoundationEssentials
internal import Glibc
internal import SetteeReplicator

/// The running server as its admin sees it, for `settee pair`: `--server URL` (its
/// userinfo the credentials) or `http://127.0.0.1:$SETTEE_PORT` with `SETTEE_ADMIN`.
struct AdminClient {
    /// `scheme://host:port`, no credentials.
    let base: String
    let host: String
    let port: Int
    private let authorization: (String, String)?
    private let session: CurlSession
    /// The command its messages name (`settee pair: ...`).
    private let command: String

    init(server: String?, command: String = "pair") throws {
        self.command = command
        let environment = ProcessInfo.processInfo.environment
        let text = server ?? "http://127.0.0.1:\(environment["SETTEE_PORT"] ?? "5984")"
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty else {
            throw ValidationError("--server must be an http(s) URL such as http://admin:secret@127.0.0.1:5984")
        }
        self.host = host
        port = components.port ?? (scheme == "https" ? 443 : 80)
        base = "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)"
        let credentials = components.percentEncodedUser.flatMap(URLText.percentDecoded).map {
            ($0, components.percentEncodedPassword.flatMap(URLText.percentDecoded) ?? "")
        }
            ?? environment["SETTEE_ADMIN"].flatMap { value in
                value.firstIndex(of: ":").map { (String(value[..<$0]), String(value[value.index(after: $0)...])) }
            }
        authorization = credentials.map { ("Authorization", "Basic " + Data("\($0.0):\($0.1)".utf8).base64EncodedString()) }
        // Our own server on loopback: its certificate is the self-signed one we made.
        session = CurlSession(maxConnections: 1, verifyTLS: !Self.isLoopback(host))
    }

    func request(_ method: String, _ path: String, body: [UInt8]? = nil) async throws -> RemoteResponse {
        var headers = authorization.map { [$0] } ?? []
        if body != nil { headers.append(("Content-Type", "application/json")) }
        let response: RemoteResponse
        do {
            response = try await session.send(RemoteRequest(method: method, url: base + path, headers: headers, body: body,
                                                            timeout: .seconds(30)))
        } catch {
            throw fail("cannot reach the server at \(base): \(error)")
        }
        if response.status == 401 || response.status == 403, path != "/" {
            throw fail("\(base) refused the credentials: an admin's are needed (--server http://NAME:PASSWORD@HOST:PORT, or SETTEE_ADMIN=NAME:PASSWORD)")
        }
        return response
    }

    /// Prints `settee pair: message` and gives the error that exits non-zero.
    func fail(_ message: String) -> any Error {
        StandardStreams.error("settee \(command): \(message)\n")
        return ExitCode.failure
    }

    /// The address another device reaches this server at: the server's host unless it
    /// is loopback, else this machine's first non-loopback IPv4 address.
    var lanHost: String {
        guard Self.isLoopback(host) else { return host }
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return host }
        defer { freeifaddrs(list) }
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET),
                  entry.pointee.ifa_flags & UInt32(IFF_LOOPBACK) == 0, entry.pointee.ifa_flags & UInt32(IFF_UP) != 0 else { continue }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                var raw = inet.pointee.sin_addr
                _ = inet_ntop(AF_INET, &raw, &text, socklen_t(INET_ADDRSTRLEN))
            }
            return String(cString: text)
        }
        return host
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// A path segment, percent-encoded (RFC 3986 unreserved characters kept).
    static func encode(_ text: String) -> String { URLText.percentEncoded(text) }
}
