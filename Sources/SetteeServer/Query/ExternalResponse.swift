import Foundation
import SetteeHTTP
import SetteeJSON

/// A show, list or update function's response object read as CouchDB reads it
/// (chttpd_external:parse_external_response and send_external_response): `code`,
/// `headers`, and one of `json` (sent as JSON), `body` (text, `text/html; charset=utf-8`
/// unless the headers say otherwise) or `base64` (bytes, `application/binary`);
/// anything else is a 500 `external_response_error`. Responses that are not JSON get
/// CouchDB's `Content-Security-Policy: sandbox` (`[csp] showlist_enable`).
struct ExternalResponse {
    var code = 200
    var body: [UInt8] = []
    var contentType = "application/json"
    var headers = HTTPHeaders()
    var isJSON = false

    /// - Parameter code: the status unless the object names one.
    init(_ value: JSONValue, code: Int = 200) throws {
        self.code = code
        guard case .object(let object) = value else {
            throw CouchError(500, "external_response_error", "Invalid data from external server: \(JSONWriter.string(value))")
        }
        for member in object {
            let (key, value) = (member.key, member.value)
            switch key {
            case "code":
                guard let code = value.intValue, (100...599).contains(code) else { throw Self.invalid(key, value) }
                self.code = code
            case "stop":
                break
            case "json":
                body = Array(JSONWriter.string(value).utf8) + [0x0A]
                contentType = "application/json"
                isJSON = true
            case "body":
                body = Array((value.stringValue ?? JSONWriter.string(value)).utf8)
                contentType = "text/html; charset=utf-8"
                isJSON = false
            case "base64":
                guard let text = value.stringValue, let bytes = Data(base64Encoded: text) else {
                    throw Self.invalid(key, value)
                }
                body = Array(bytes)
                contentType = "application/binary"
                isJSON = false
            case "headers":
                guard case .object(let fields) = value else { throw Self.invalid(key, value) }
                headers = HTTPHeaders()
                for field in fields { headers.add(field.key, field.value.stringValue ?? JSONWriter.string(field.value)) }
            default:
                throw Self.invalid(key, value)
            }
        }
    }

    /// `name: value` replacing any header of that name (CouchDB's `apply_headers`).
    mutating func set(_ name: String, _ value: String) { headers.set(name, value) }

    func response() -> HTTPResponse {
        var out = headers
        if !out.contains("Content-Type") { out.add("Content-Type", contentType) }
        if !isJSON { out.add("Content-Security-Policy", "sandbox") }
        return HTTPResponse(status: code, headers: out, body: .bytes(body))
    }

    private static func invalid(_ key: String, _ value: JSONValue) -> CouchError {
        CouchError(500, "external_response_error",
                   "Invalid data from external server: {<<\"\(key)\">>,\(JSONWriter.string(value))}")
    }
}
