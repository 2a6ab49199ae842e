import Foundation
import Logging
@testable import SetteeServer
import SetteeHTTP
import SetteeJSON
import SetteeStore

/// Drives the CouchDB router in-process, with no socket: a fresh data
/// directory per harness and an admin `admin`/`secret`.
/// (TouchDB `TDRouter_Tests.m` `SendRequest`, Hummingbird `.router` testing.)
final class RouterHarness {
    let directoryURL: URL
    let router: CouchRouter
    static let adminAuthorization = "Basic " + Data("admin:secret".utf8).base64EncodedString()

    init(configure: (inout NodeConfiguration) -> Void = { _ in }) throws {
        directoryURL = FileManager.default.temporaryDirectory.appendingPathComponent("settee-router-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directoryURL, withIntermediateDirectories: true)
        var configuration = NodeConfiguration(http: ServerConfiguration(), store: StoreConfiguration(path: directoryURL.path),
                                              uuid: "0123456789abcdef0123456789abcdef")
        configuration.admins = ["admin": PasswordHash.hash(password: "secret", iterations: 10)]  // fast for tests
        configure(&configuration)
        let directory = try DatabaseDirectory(configuration: configuration.store, logger: Logger(label: "test"))
        router = CouchRouter(configuration: configuration, directory: directory)
    }

    deinit { try? FileManager.default.removeItem(at: directoryURL) }

    struct Reply {
        let status: Int
        let headers: HTTPHeaders
        let body: [UInt8]
        var json: JSONValue { (try? JSONReader.parse(body)) ?? .null }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// Sends a request as the admin unless `headers` carries other credentials (or `admin` is false).
    func send(_ method: String, _ target: String, json: JSONValue? = nil, body: [UInt8]? = nil,
              headers: HTTPHeaders = [:], admin: Bool = true, peer: String = "127.0.0.1:40000") async -> Reply {
        var headers = headers
        if admin && headers["Authorization"] == nil { headers.add("Authorization", Self.adminAuthorization) }
        var bytes = body ?? []
        if let json {
            bytes = JSONWriter.serialize(json)
            if headers["Content-Type"] == nil { headers.add("Content-Type", "application/json") }
        }
        let request = HTTPRequest(method: method, target: target, headers: headers, body: RequestBody(bytes: bytes),
                                  remoteAddress: peer)
        let response = await router.respond(to: request)
        var collected: [UInt8] = []
        switch response.body {
        case .empty: break
        case .bytes(let b): collected = b
        case .stream(let write):
            let sink = CollectingWriter()
            try? await write(sink)
            collected = sink.bytes
        }
        return Reply(status: response.status, headers: response.headers, body: collected)
    }
}

/// Gathers a streamed body in memory.
final class CollectingWriter: ResponseBodyWriter, @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [UInt8] = []
    var bytes: [UInt8] { lock.withLock { storage } }
    func write(_ bytes: [UInt8]) async throws { lock.withLock { storage.append(contentsOf: bytes) } }
}

extension JSONValue {
    /// The change count a sequence names: the number before the dash of a
    /// CouchDB 3-shaped `"n-opaque"` seq (nil for anything else).
    var seqNumber: Int? {
        guard let text = stringValue, let dash = text.firstIndex(of: "-") else { return nil }
        return Int(text[..<dash])
    }
}
