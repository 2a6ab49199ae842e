import Glibc
@testable import SetteeHTTP

/// Calls `/light` light (`HTTPResponder.isLight`) and answers every request with where it
/// ran: `loop` on an event loop's thread, `pool` elsewhere; `X-Thread` names the thread.
struct LoopResponder: HTTPResponder {
    func isLight(method: String, target: String) -> Bool { target == "/light" }

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        // Read any body on whichever thread serves the request.
        _ = try? await request.body.collect(upTo: 1 << 16)
        return HTTPResponse(status: 200, headers: ["X-Thread": String(UInt(pthread_self()))],
                            body: .bytes(Array((EventLoop.isOnLoopThread ? "loop" : "pool").utf8)))
    }
}
