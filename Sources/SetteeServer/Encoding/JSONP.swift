import SetteeHTTP
import Synchronization

/// JSONP, as CouchDB 3.4.3's couch_httpd wraps JSON answers when `[chttpd] allow_jsonp`
/// is true (false by default, when `callback` is ignored): `?callback=NAME` turns every
/// JSON answer, errors and streamed feeds included, into
/// `/* CouchDB */NAME(<json>);` + newline, typed `application/javascript`. A name other
/// than letters, digits, `.`, `_`, `[` and `]` is 400 `bad_request` "invalid_callback"
/// (couch_httpd:validate_callback/1), answered as plain JSON.
enum JSONP {
    /// The callback `request` names, nil for none or an empty one.
    /// - Throws: 400 for a name CouchDB refuses.
    static func callback(_ request: HTTPRequest, plusAsSpace: Bool) throws -> String? {
        guard let name = request.queryItems(plusAsSpace: plusAsSpace)?.first(where: { $0.name == "callback" })?.value,
              !name.isEmpty else { return nil }
        let allowed = name.unicodeScalars.allSatisfy { scalar in
            ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                || ".[]_".unicodeScalars.contains(scalar)
        }
        guard allowed else { throw CouchError.badRequest("invalid_callback") }
        return name
    }

    /// `response` wrapped in the call to `callback` when it is JSON; otherwise as it is.
    static func wrap(_ response: HTTPResponse, callback: String) -> HTTPResponse {
        guard response.headers["Content-Type"]?.lowercased().hasPrefix("application/json") == true else { return response }
        var wrapped = response
        wrapped.headers.set("Content-Type", "application/javascript")
        wrapped.headers.remove("Content-Length")
        let opening = Array("/* CouchDB */\(callback)(".utf8), closing = Array(");\n".utf8)
        switch response.body {
        case .empty:
            wrapped.body = .bytes(opening + closing)
        case .bytes(let bytes):
            wrapped.body = .bytes(opening + withoutFinalNewline(bytes) + closing)
        case .stream(let write):
            wrapped.body = .stream { writer in
                try await writer.write(opening)
                let held = NewlineHoldingWriter(writer)
                try await write(held)
                try await writer.write(closing)
            }
        }
        return wrapped
    }

    private static func withoutFinalNewline(_ bytes: [UInt8]) -> [UInt8] {
        bytes.last == 0x0A ? Array(bytes.dropLast()) : bytes
    }
}

/// Passes chunks on, holding a chunk's final newline back until more follows: the
/// JSON's closing newline goes after the call's `);` instead (as CouchDB's
/// end_json_response sends it).
private final class NewlineHoldingWriter: ResponseBodyWriter {
    let inner: any ResponseBodyWriter
    private let heldNewline = Mutex(false)

    init(_ inner: any ResponseBodyWriter) { self.inner = inner }

    var isPeerClosed: Bool { inner.isPeerClosed }

    func write(_ bytes: [UInt8]) async throws {
        guard !bytes.isEmpty else { return }
        var out = heldNewline.withLock { held in
            defer { held = false }
            return held ? [UInt8(0x0A)] : []
        }
        out += bytes
        if out.last == 0x0A {
            out.removeLast()
            heldNewline.withLock { $0 = true }
        }
        if !out.isEmpty { try await inner.write(out) }
    }
}
