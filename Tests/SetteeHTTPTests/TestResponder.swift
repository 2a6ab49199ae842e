import Synchronization
import SetteeHTTP

/// Routes by path: /hello, /echo (body back), /ignore (never reads the body),
/// /stream (three chunks), /slow (waits until `release()`; announces arrival).
final class TestResponder: HTTPResponder {
    private let gate = Mutex<CheckedContinuation<Void, Never>?>(nil)
    private let arrivals: AsyncStream<Void>.Continuation
    let arrived: AsyncStream<Void>

    init() { (arrived, arrivals) = AsyncStream.makeStream() }

    func release() {
        while true {
            if let c = gate.withLock({ g in defer { g = nil }; return g }) { c.resume(); return }
            Thread.yieldNow()
        }
    }

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        switch request.rawPath {
        case "/hello": return HTTPResponse(status: 200, body: .bytes(Array("hello".utf8)))
        case "/echo":
            do {
                return HTTPResponse(status: 200, body: .bytes(try await request.body.collect(upTo: 1 << 20)))
            } catch {
                return HTTPResponse(status: 400, body: .bytes(Array("\(error)".utf8)))
            }
        case "/ignore": return HTTPResponse(status: 200, body: .bytes(Array("ignored".utf8)))
        case "/stream":
            return HTTPResponse(status: 200, body: .stream { writer in
                for piece in ["a", "bb", "ccc"] { try await writer.write(Array(piece.utf8)) }
            })
        case "/slow":
            await withCheckedContinuation { c in
                gate.withLock { $0 = c }
                arrivals.yield()
            }
            return HTTPResponse(status: 200, body: .bytes(Array("slow".utf8)))
        default: return HTTPResponse(status: 404)
        }
    }
}

enum Thread {
    static func yieldNow() { _ = sched_yield() }
}

import Glibc
