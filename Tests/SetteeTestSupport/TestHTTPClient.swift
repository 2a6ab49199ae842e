/*
 A deliberately small, blocking HTTP/1.1 client over a raw loopback socket, so tests
 see exactly what the server sent: no redirects followed, no auth challenges
 answered, no headers added beyond Host, Content-Length, Authorization (from the
 URL's user:password) and `Connection: close`. It reads to EOF and undoes chunked
 transfer coding (RFC 9112 §7.1).
*/
public import Foundation
public import SetteeJSON
internal import Glibc

/// One HTTP response as received.
public struct TestResponse: Sendable {
    public var status: Int
    /// Header fields in order, names as sent.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    /// The first header named `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }
    /// The body parsed as JSON, or nil when it is not JSON.
    public var json: JSONValue? { try? JSONReader.parse(body) }
}

/// Blocking requests for tests. `url` may carry `user:password@` for Basic auth.
///
///     let r = try TestHTTPClient.request("PUT", settee.baseURL.appendingPathComponent("db"))
///     #expect(r.status == 201)
public enum TestHTTPClient {
    /// Sends one request and returns the whole response.
    /// - Throws: `TestSupportError` for connection failures or an unparsable response.
    public static func request(_ method: String, _ url: URL, headers: [(String, String)] = [],
                               body: [UInt8] = [], timeout: TimeInterval = 30) throws -> TestResponse {
        guard let host = url.host, let port = url.port ?? (url.scheme == "http" ? 80 : nil) else {
            throw TestSupportError.badResponse("unsupported URL \(url)")
        }
        let fd = try connect(host: host, port: port, timeout: timeout)
        defer { close(fd) }
        try sendAll(fd, requestBytes(method, url, host: host, port: port, headers: headers, body: body))
        return try parse(readAll(fd))
    }

    /// `GET url`.
    public static func get(_ url: URL) throws -> TestResponse { try request("GET", url) }

    static func requestBytes(_ method: String, _ url: URL, host: String, port: Int,
                             headers: [(String, String)], body: [UInt8]) -> [UInt8] {
        var target = url.path.isEmpty ? "/" : url.path
        if let query = url.query { target += "?" + query }
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n"
        if let user = url.user {
            let credentials = "\(user):\(url.password ?? "")".removingPercentEncoding ?? ""
            head += "Authorization: Basic \(Data(credentials.utf8).base64EncodedString())\r\n"
        }
        if !body.isEmpty || ["POST", "PUT"].contains(method) { head += "Content-Length: \(body.count)\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        return Array((head + "\r\n").utf8) + body
    }

    public static func connect(host: String, port: Int, timeout: TimeInterval) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestSupportError.socket("socket", errno) }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr(host == "localhost" ? "127.0.0.1" : host)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw TestSupportError.socket("connect", code)
        }
        return fd
    }

    public static func sendAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            // The server may answer early (413) and close; the response is still readable.
            if n <= 0 { return }
            sent += n
        }
    }

    static func readAll(_ fd: Int32) throws -> [UInt8] {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { return data }
            if n < 0 {
                if errno == EINTR { continue }
                if data.isEmpty { throw TestSupportError.socket("recv", errno) }
                return data
            }
            data += buffer[0..<n]
        }
    }

    static func parse(_ raw: [UInt8]) throws -> TestResponse {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let end = raw.firstRange(of: separator) else { throw TestSupportError.badResponse("no header end") }
        let head = String(decoding: raw[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else {
            throw TestSupportError.badResponse("status line \(head.first ?? "")")
        }
        let headers = head.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var response = TestResponse(status: status, headers: headers, body: Array(raw[end.upperBound...]))
        if response.header("Transfer-Encoding")?.lowercased().contains("chunked") == true {
            response.body = try dechunk(response.body)
        }
        return response
    }

    static func dechunk(_ bytes: [UInt8]) throws -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        let crlf: [UInt8] = [13, 10]
        while let lineEnd = bytes[index...].firstRange(of: crlf) {
            let sizeText = String(decoding: bytes[index..<lineEnd.lowerBound], as: UTF8.self)
            guard let size = Int(sizeText.split(separator: ";").first ?? "", radix: 16) else {
                throw TestSupportError.badResponse("chunk size \(sizeText)")
            }
            if size == 0 { return out }
            let start = lineEnd.upperBound
            guard start + size <= bytes.count else { throw TestSupportError.badResponse("truncated chunk") }
            out += bytes[start..<start + size]
            index = start + size + 2
            guard index <= bytes.count else { throw TestSupportError.badResponse("truncated chunk") }
        }
        throw TestSupportError.badResponse("missing last chunk")
    }
}
