// libFuzzer target `revid`, compiled with SetteeStore's RevisionID by fuzz/run.
//
// Revision ids come from clients (`_rev`, `?rev=`, `If-Match`, `_revisions`,
// `_revs_diff`) and are parsed for every node of every tree read. On any text
// the parser must not trap, and what it accepts must print as text that parses
// back to the same id.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRevisionID(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let buffer = UnsafeBufferPointer(start: data, count: size)
    let bytes = Array(buffer)
    let fromBytes = RevisionID(utf8: buffer)
    let text = String(decoding: bytes, as: UTF8.self)
    guard let rev = RevisionID(text) else { return 0 }
    if bytes.elementsEqual(text.utf8) { precondition(fromBytes == rev, "bytes and text parse differently") }
    precondition(rev.generation >= 1, "generation below 1")
    precondition(RevisionID(rev.description) == rev, "\(rev) does not parse back to itself")
    // As `_revisions` gives them: the generation and the text after the first dash
    // byte (not Character: "-" followed by a combining mark is one Character).
    if let dash = text.utf8.firstIndex(of: UInt8(ascii: "-")) {
        let suffix = String(decoding: text.utf8[text.utf8.index(after: dash)...], as: UTF8.self)
        precondition(RevisionID(generation: rev.generation, validating: suffix) == rev,
                     "generation and suffix apart parse differently from \(text)")
    }
    return 0
}
