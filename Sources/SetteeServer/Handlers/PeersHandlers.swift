import SetteeHTTP
import SetteeJSON

/// `GET /_peers` (server admins): the peers DNS-SD found, each with what it
/// advertises, whether it answers HTTP now (`?reachable=false` skips that check),
/// and the state of this server's replications with it. Settee's own endpoint.
enum PeersHandlers {
    static func get(_ context: RequestContext) async throws -> HTTPResponse {
        guard let discovery = context.node.discovery else {
            return JSONResponse.ok(["peers": [], "enabled": false])
        }
        let check = try context.query.bool("reachable", default: true)
        var body = await discovery.peersJSON(checkReachability: check).objectValue ?? JSONObject()
        body.append("enabled", true)
        body.append("instance", .string(discovery.instanceName))
        return JSONResponse.ok(.object(body))
    }
}
