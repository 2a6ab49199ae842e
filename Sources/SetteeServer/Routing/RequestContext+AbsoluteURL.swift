import SetteeHTTP

extension RequestContext {
    /// `path` as an absolute URL, as CouchDB's `chttpd:absolute_uri` builds the
    /// `Location` of a 201 or a 301: the host from the `[chttpd] x_forwarded_host`
    /// header, else `Host`; the scheme from `X-Forwarded-Ssl: on` or
    /// `X-Forwarded-Proto: https`, else the connection's. Without any host
    /// (an HTTP/1.0 request may send none) the path alone.
    func absoluteURL(_ path: String) -> String {
        let host = request.headers[node.live.forwardedHostHeader.value] ?? request.headers["Host"]
        guard let host, !host.isEmpty else { return path }
        return scheme + "://" + host + path
    }

    private var scheme: String {
        if request.headers["X-Forwarded-Ssl"] == "on" { return "https" }
        if request.headers["X-Forwarded-Proto"] == "https" { return "https" }
        return "http"
    }
}

/// CouchDB's `couch_util:url_encode`, which its `Location` headers use: every byte
/// of the UTF-8 but letters, digits and `_ . - :` as `%XX` (so `_design/x` becomes
/// `_design%2Fx`, unlike the paths CouchDB accepts).
enum CouchURLEncoding {
    static func encode(_ text: String) -> String { PercentDecoding.encode(text, keeping: "-._:") }
}
