
import Testing
@testable import SetteeDocuments

/// A part as the tests compare it.
struct ParsedPart: Equatable {
    var headers: [String]
    var body: [UInt8]
}

/// Feeds `chunks` and folds the events into parts; `finish()` at the end.
func parse(_ chunks: [[UInt8]], boundary: String) throws -> [ParsedPart] {
    var reader = MultipartReader(boundary: boundary, maxHeaderBytes: 1024)
    var parts: [ParsedPart] = []
    var ended = false
    for chunk in chunks {
        for event in try reader.feed(chunk) {
            switch event {
            case .headers(let h): parts.append(ParsedPart(headers: h.map { "\($0.name): \($0.value)" }, body: []))
            case .body(let bytes):
                #expect(!bytes.isEmpty)
                parts[parts.count - 1].body += bytes
            case .partEnd: break
            case .end: ended = true
            }
        }
    }
    try reader.finish()
    #expect(ended)
    return parts
}

func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

@Suite struct MultipartReaderTests {
    // The shape of CouchDB 3.4.3's replicator PUT (spec/transcripts), shortened.
    static let boundary = "ec31ddb841e4778f83c47c9ec084a064"
    static let couchBody = bytes(
        "--\(boundary)\r\nContent-Type: application/json\r\n\r\n{\"_id\":\"doc\"}\r\n"
        + "--\(boundary)\r\nContent-Disposition: attachment; filename=\"blob.bin\"\r\n"
        + "Content-Type: application/octet-stream\r\nContent-Length: 9\r\n\r\nab\r\n--\(boundary.prefix(5))\r\n"
        + "\r\n--\(boundary)--")
    static let expected = [
        ParsedPart(headers: ["Content-Type: application/json"], body: bytes("{\"_id\":\"doc\"}")),
        ParsedPart(headers: ["Content-Disposition: attachment; filename=\"blob.bin\"",
                             "Content-Type: application/octet-stream", "Content-Length: 9"],
                   body: bytes("ab\r\n--\(boundary.prefix(5))\r\n")),
    ]

    @Test func wholeBody() throws {
        #expect(try parse([Self.couchBody], boundary: Self.boundary) == Self.expected)
    }

    @Test func byteByByte() throws {
        #expect(try parse(Self.couchBody.map { [$0] }, boundary: Self.boundary) == Self.expected)
    }

    @Test func everyTwoWaySplit() throws {
        let body = Self.couchBody
        for cut in 0...body.count {
            let parts = try parse([Array(body[..<cut]), Array(body[cut...])], boundary: Self.boundary)
            #expect(parts == Self.expected, "split at \(cut)")
        }
    }

    @Test func randomSplits() throws {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var chunks: [[UInt8]] = []
            var i = 0
            while i < Self.couchBody.count {
                let n = min(Int.random(in: 1...17, using: &rng), Self.couchBody.count - i)
                chunks.append(Array(Self.couchBody[i..<(i + n)]))
                i += n
            }
            #expect(try parse(chunks, boundary: Self.boundary) == Self.expected)
        }
    }

    @Test(arguments: ["a", "'()+_,-./:=?", "with space", String(repeating: "z", count: 70), "--"])
    func oddBoundaries(boundary: String) throws {
        let body = bytes("--\(boundary)\r\nX: 1\r\n\r\nhi\r\n--\(boundary)\r\n\r\n\r\n--\(boundary)--")
        let parts = try parse(body.map { [$0] }, boundary: boundary)
        #expect(parts == [ParsedPart(headers: ["X: 1"], body: bytes("hi")),
                          ParsedPart(headers: [], body: [])])
    }

    @Test func preambleEpiloguePaddingAndFolding() throws {
        let body = bytes("ignored preamble\r\n--B  \t\r\nA:  x\r\n  y\r\nb:z\r\n\r\nbody\r\n--B--\r\nepilogue")
        #expect(try parse([body], boundary: "B") == [ParsedPart(headers: ["A: x y", "b: z"], body: bytes("body"))])
    }

    @Test func missingFinalBoundary() throws {
        for body in ["--B\r\n\r\nbody", "--B\r\n\r\nbody\r\n--B", "--B\r\n\r\nbody\r\n--B\r\n", ""] {
            #expect(throws: MultipartError.missingFinalBoundary) { try parse([bytes(body)], boundary: "B") }
        }
    }

    @Test func garbageAfterBoundary() throws {
        #expect(throws: MultipartError.self) { try parse([bytes("--B\r\n\r\nx\r\n--Bx\r\n\r\n--B--")], boundary: "B") }
        #expect(throws: MultipartError.self) { try parse(bytes("--Bjunk").map { [$0] }, boundary: "B") }
        #expect(throws: MultipartError.self) { try parse([bytes("--B\r\nno colon here\r\n\r\n\r\n--B--")], boundary: "B") }
    }

    @Test func headerBlockTooLarge() throws {
        let big = "--B\r\nX: " + String(repeating: "v", count: 2000) + "\r\n\r\n\r\n--B--"
        #expect(throws: MultipartError.headersTooLarge(limit: 1024)) { try parse([bytes(big)], boundary: "B") }
        #expect(throws: MultipartError.headersTooLarge(limit: 1024)) {
            try parse(bytes(big).map { [$0] }, boundary: "B")
        }
    }

    @Test func bodyStreamsWithoutWaitingForTheEnd() throws {
        var reader = MultipartReader(boundary: "B")
        _ = try reader.feed(bytes("--B\r\n\r\n"))
        let events = try reader.feed([UInt8](repeating: 0x41, count: 10_000))
        let streamed = events.reduce(0) { n, e in if case .body(let b) = e { n + b.count } else { n } }
        #expect(streamed >= 10_000 - 4)  // all but a possible delimiter prefix
        #expect(!reader.isComplete)
    }

    @Test(arguments: [
        ("multipart/related; boundary=\"abc\"", "abc"),
        ("multipart/mixed;boundary=abc", "abc"),
        ("Multipart/Related; type=\"application/json\"; BOUNDARY=x y", "x y"),
        ("multipart/related; boundary=\"a\\\"b\"; charset=x", "a\"b"),
    ])
    func boundaryFromContentType(header: String, expected: String) {
        #expect(MultipartReader.boundary(fromContentType: header) == expected)
    }

    @Test(arguments: ["application/json", "multipart/related", "multipart/related; boundary=\"\"",
                      "multipart/related; boundary=" + String(repeating: "x", count: 71)])
    func noBoundary(header: String) {
        #expect(MultipartReader.boundary(fromContentType: header) == nil)
    }
}
