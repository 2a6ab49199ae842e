import Foundation
import Logging
@testable import SetteeHTTP
import Synchronization
import Testing

/// `Connection` over a scripted `Transport`: no socket, no event loop, so what
/// the connection reads, writes, shuts down and closes is seen exactly. This is
/// the seam a TLS transport plugs into.
@Suite struct ConnectionTransportTests {
    /// Hands out `input` one chunk per read, then end of stream; records the rest.
    final class ScriptedTransport: Transport {
        private struct State {
            var input: [[UInt8]]
            var output: [UInt8] = []
            var events: [String] = []
        }
        private let state: Mutex<State>
        let peer = "scripted"
        var isPeerClosed: Bool { false }

        init(_ chunks: [String]) { state = Mutex(State(input: chunks.map { Array($0.utf8) })) }

        var output: String { state.withLock { String(decoding: $0.output, as: UTF8.self) } }
        var events: [String] { state.withLock { $0.events } }

        func onPeerClose(_ action: (@Sendable () -> Void)?) {}
        func read(maxBytes: Int, deadline: ContinuousClock.Instant?) async throws -> [UInt8] {
            state.withLock { s in
                guard !s.input.isEmpty else {
                    s.events.append("eof")
                    return []
                }
                let chunk = s.input.removeFirst()
                guard chunk.count > maxBytes else { return chunk }
                s.input.insert(Array(chunk[maxBytes...]), at: 0)
                return Array(chunk[..<maxBytes])
            }
        }
        func write(_ bytes: [UInt8], deadline: ContinuousClock.Instant?) async throws {
            state.withLock { $0.output.append(contentsOf: bytes) }
        }
        func shutdownWrite() { state.withLock { $0.events.append("shutdownWrite") } }
        func interrupt(_ error: HTTPError) { state.withLock { $0.events.append("interrupt") } }
        func close() { state.withLock { $0.events.append("close") } }
    }

    /// Serves `transport` until the connection is closed (a streamed response is sent by
    /// a task of its own, so `run` may return before that).
    private func serve(_ transport: ScriptedTransport) async {
        await withCheckedContinuation { (closed: CheckedContinuation<Void, Never>) in
            let connection = Connection(transport: transport, configuration: ServerConfiguration(),
                                        responder: TestResponder(), logger: Logger(label: "test"),
                                        isServerStopping: { false }, onClose: { closed.resume() })
            Task { await connection.run() }
        }
    }

    @Test func pipelinedRequestsSplitAnywhereAreAnsweredInOrder() async {
        // The second request's head and the first's body arrive in the same read,
        // and a head is split mid-line across reads.
        let transport = ScriptedTransport([
            "POST /echo HTTP/1.1\r\nHost: h\r\nContent-Le", "ngth: 3\r\n\r\nabcGET /hel",
            "lo HTTP/1.1\r\nHost: h\r\n\r\n",
        ])
        await serve(transport)
        let responses = transport.output.components(separatedBy: "HTTP/1.1 200 OK\r\n")
        #expect(responses.count == 3)
        #expect(responses[1].hasSuffix("\r\n\r\nabc") && responses[2].hasSuffix("\r\n\r\nhello"))
        #expect(transport.events == ["eof", "close"])
    }

    @Test func aFramingErrorIsAnsweredThenTheWriteSideShutsBeforeClose() async {
        let transport = ScriptedTransport(["GET /hello HTTP/1.1\r\nHost: h\r\nContent-Length: x\r\n\r\n", "junk"])
        await serve(transport)
        #expect(transport.output.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
        #expect(transport.output.contains("Connection: close\r\n"))
        // Lingering close: FIN first, the client's leftovers read and dropped, then close.
        #expect(transport.events == ["shutdownWrite", "eof", "close"])
    }

    /// A long stream (a `_changes` feed, open for hours) goes on in a task of its own and
    /// the task that served the request ends, taking the stack slabs its router frames
    /// needed with it (about 14 KiB under each idle feed before, heaptrack, issue 45).
    @Test func aStreamedResponseGoesOnInATaskOfItsOwn() async throws {
        let transport = ScriptedTransport(["GET /held HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"])
        let gate = AsyncStream<Void>.makeStream()
        let closed = AsyncStream<Void>.makeStream()
        let connection = Connection(transport: transport, configuration: ServerConfiguration(),
                                    responder: HeldStreamResponder(gate: gate.stream), logger: Logger(label: "test"),
                                    isServerStopping: { false }, onClose: { closed.continuation.yield() })
        let returned = ReturnFlag()
        Task {
            await connection.run()
            returned.value.store(true, ordering: .releasing)
        }
        // run() returns while the stream is held open (a poll with a deadline, not a sleep to sync).
        let deadline = ContinuousClock.now + .seconds(10)
        while !returned.isSet, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        let hasReturned = returned.isSet
        #expect(hasReturned, "the task that served the request still waits for the stream")
        #expect(!transport.events.contains("close"))
        gate.continuation.yield()
        var isClosed = closed.stream.makeAsyncIterator()
        _ = await isClosed.next()
        #expect(transport.output.hasSuffix("4\r\nheld\r\n0\r\n\r\n"))
        #expect(transport.events.last == "close")
    }

    @Test func aStreamedResponseIsWrittenThroughTheTransport() async {
        let transport = ScriptedTransport(["GET /stream HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"])
        await serve(transport)
        #expect(transport.output.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(transport.output.hasSuffix("1\r\na\r\n2\r\nbb\r\n3\r\nccc\r\n0\r\n\r\n"))
        #expect(transport.events.last == "close")
    }
}

/// A stream that sends "held" once `gate` yields.
private struct HeldStreamResponder: HTTPResponder {
    let gate: AsyncStream<Void>

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        HTTPResponse(status: 200, body: .stream { [gate] writer in
            for await _ in gate { break }
            try await writer.write(Array("held".utf8))
        })
    }
}

private final class ReturnFlag: Sendable {
    let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
}
