// libFuzzer target `multipart`, compiled with SetteeDocuments' MultipartReader and
// MultipartHeaders by fuzz/run.
//
// MultipartReader parses `multipart/related` document uploads (the replicator's
// `PUT doc?new_edits=false`) as they come off the socket. On any bytes it must
// not trap, and what it finds must not depend on where reads cut the stream: the
// events of the whole input and of the same input fed in two pieces are equal
// (body pieces joined), up to the point where either stops with an error.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMultipart(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let whole = events(feeding: [bytes[...]])
    let cut = bytes.isEmpty ? 0 : Int(bytes[0]) * 7 % (bytes.count + 1)
    let split = events(feeding: [bytes[..<cut], bytes[cut...]])
    if whole.failed == nil, split.failed == nil {
        precondition(whole.found == split.found, "multipart events differ when the input is split at \(cut)")
    }
    return 0
}

/// The reader's events for `pieces`, fed in turn, as comparable text; and the first error.
private func events(feeding pieces: [ArraySlice<UInt8>]) -> (found: [String], failed: MultipartError?) {
    var reader = MultipartReader(boundary: "abc", maxHeaderBytes: 512)
    var found: [String] = []
    var body: [UInt8] = []
    func flushBody() {
        if !body.isEmpty { found.append("body \(body)") }
        body = []
    }
    for piece in pieces {
        do {
            for event in try reader.feed(piece) {
                switch event {
                case .body(let bytes):
                    precondition(!bytes.isEmpty, "an empty body event")
                    body += bytes
                case .headers(let headers):
                    flushBody()
                    found.append("headers \(headers.fields.map { "\($0.name): \($0.value)" })")
                case .partEnd: flushBody(); found.append("partEnd")
                case .end: flushBody(); found.append("end")
                }
            }
        } catch {
            return (found, error)
        }
    }
    flushBody()
    return (found, nil)
}
