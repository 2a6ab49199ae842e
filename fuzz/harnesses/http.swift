// libFuzzer target `http`, compiled with SetteeHTTP's parsing sources by fuzz/run.
//
// These parse the bytes any peer on the network sends before it is
// authenticated: request heads (one after another, as pipelined), chunked
// bodies and percent-encoded targets. None may trap; an error is an
// `HTTPError` the connection answers.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var limits = Limits()
    limits.maxHeaderBytes = 4096
    limits.maxHeaderCount = 20
    limits.maxBodyBytes = 1 << 20
    let parser = RequestParser(limits: limits)
    var start = 0
    while start < bytes.count, let parsed = try? parser.parse(bytes, from: start) {
        precondition(parsed.end > start && parsed.end <= bytes.count, "the parser did not advance within the buffer")
        _ = PercentDecoding.decode(parsed.head.target, plusAsSpace: true)
        start = parsed.end
    }
    // The same bytes as a chunked body, whole and then in two pieces.
    var whole = ChunkedDecoder(maxBodyBytes: 1 << 20, maxTrailerBytes: 4096)
    var out: [UInt8] = []
    let wholeDecoded = (try? whole.decode(bytes, from: 0, into: &out)) != nil
    let cut = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
    var split = ChunkedDecoder(maxBodyBytes: 1 << 20, maxTrailerBytes: 4096)
    var pieces: [UInt8] = []
    if let consumed = try? split.decode(Array(bytes[..<cut]), from: 0, into: &pieces), consumed == cut {
        _ = try? split.decode(Array(bytes[cut...]), from: 0, into: &pieces)
    }
    // Where a body ends cannot depend on how its bytes were cut into reads.
    if wholeDecoded, whole.isComplete, split.isComplete {
        precondition(pieces == out, "a chunked body decoded differently when split at \(cut)")
    }
    return 0
}
