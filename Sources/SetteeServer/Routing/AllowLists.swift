/// The methods a 405 names (its `Allow` header and "Only … allowed") on the routes whose
/// CouchDB handler writes that list itself, in CouchDB's words and order: chttpd's
/// `send_method_not_allowed(Req, "PUT,GET")` calls differ from route to route (a
/// database's `_security` says "PUT,GET", its `_changes` "GET,POST,HEAD", `_uuids` "GET"
/// with no HEAD). Each list was read from Apache CouchDB 3.4.3's answer to a method the
/// route does not take (conformance/test_method_not_allowed.py). Routes not named here
/// name the methods they answer, HEAD wherever GET is, which is what CouchDB says on them.
enum AllowLists {
    static let byPattern: [String: [String]] = [
        "/_uuids": ["GET"],
        "/_db_updates": ["GET"],
        "/_session": ["GET", "HEAD", "POST", "DELETE"],
        "/_membership": ["GET"],
        "/_node/{node}/_config": ["GET"],
        "/_node/{node}/_config/{section}": ["GET"],
        "/_node/{node}/_config/{section}/{key}": ["GET", "PUT", "DELETE"],
        "/_node/{node}/_stats": ["GET"],
        "/_node/{node}/_stats/{path...}": ["GET"],
        "/_node/{node}/_system": ["GET"],
        "/_node/{node}/_versions": ["GET"],
        "/_node/{node}/_prometheus": ["GET"],
        "/_reshard/jobs/{name}": ["GET", "HEAD", "DELETE"],
        "/{db}": ["DELETE", "GET", "HEAD", "POST"],
        "/{db}/_changes": ["GET", "POST", "HEAD"],
        "/{db}/_revs_limit": ["PUT", "GET"],
        "/{db}/_purged_infos": ["GET"],
        "/{db}/_purged_infos_limit": ["GET", "PUT"],
        "/{db}/_index": ["GET", "POST"],
        "/{db}/_security": ["PUT", "GET"],
        "/{db}/_design/{ddoc}/_view/{view}": ["GET", "POST", "HEAD"],
        "/{db}/_design/{ddoc}/_info": ["GET"],
        "/{db}/_design/{ddoc}/_list/{name}/{path...}": ["GET", "POST", "HEAD"],
        "/{db}/{docid}": documentMethods,
        "/{db}/_design/{ddoc}": documentMethods,
        "/{db}/_local/{localid}": documentMethods,
    ]

    /// chttpd_db:db_doc_req/3's last clause.
    private static let documentMethods = ["DELETE", "GET", "HEAD", "POST", "PUT", "COPY"]
}
