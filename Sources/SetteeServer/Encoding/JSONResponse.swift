import SetteeHTTP
import SetteeJSON

/// JSON responses as CouchDB sends them: `Content-Type: application/json`,
/// `Cache-Control: must-revalidate`, compact JSON ending in a newline.
enum JSONResponse {
    static func make(status: Int, _ value: JSONValue, headers: HTTPHeaders = [:]) -> HTTPResponse {
        var bytes = JSONWriter.serialize(value)
        bytes.append(0x0A)
        return make(status: status, bytes: bytes, headers: headers)
    }

    /// A response whose JSON is already serialized (spliced documents).
    static func make(status: Int, bytes: [UInt8], headers: HTTPHeaders = [:]) -> HTTPResponse {
        var headers = headers
        // These two, then the request id, body time, `Server` and `Date` (CouchRouter): one allocation.
        headers.reserveCapacity(headers.fields.count + 6)
        headers.add("Content-Type", "application/json")
        // A handler's own (`_uuids`: `no-cache`) replaces the default.
        if !headers.contains("Cache-Control") { headers.add("Cache-Control", "must-revalidate") }
        return HTTPResponse(status: status, headers: headers, body: .bytes(bytes))
    }

    static func ok(_ value: JSONValue = ["ok": true]) -> HTTPResponse { make(status: 200, value) }
}
