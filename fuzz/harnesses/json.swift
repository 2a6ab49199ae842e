// libFuzzer target `json`, compiled into the SetteeJSON module by fuzz/run.
//
// Every request body and every stored document goes through JSONReader, and a
// body in compact form is stored by copying the member spans JSONSpanScanner
// finds (bench/RESULTS.md, "Bulk write path"). So on any bytes at all:
// - the reader must not trap;
// - what it accepts must serialize to text it accepts again, to the same text
//   (the store keeps JSONWriter's output and reads it back);
// - a member the scanner calls compact must be exactly what JSONWriter writes
//   for it, or the copy path would store other bytes than the parsed value;
//   checked where no object repeats a key, as the copy path is only taken then
//   (a repeated key keeps its last value, as CouchDB's jiffy does, so the text of
//   an object that repeats one is not its value's).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let (value, hadDuplicateKeys) = try? JSONReader.parseNotingDuplicateKeys(bytes, maxDepth: 64) else { return 0 }
    let text = JSONWriter.serialize(value)
    guard let again = try? JSONReader.parse(text, maxDepth: 64) else {
        fatalError("JSONWriter wrote text JSONReader rejects: \(String(decoding: text, as: UTF8.self))")
    }
    precondition(JSONWriter.serialize(again) == text, "serialization is not stable")
    guard case .object = value, !hadDuplicateKeys,
          let spans = bytes.withUnsafeBufferPointer({ JSONSpanScanner.members(ofObjectIn: $0) }) else { return 0 }
    for span in spans where span.isCompact {
        let member = Array("{".utf8) + bytes[span.range] + Array("}".utf8)
        guard let parsed = try? JSONReader.parse(member, maxDepth: 64) else {
            fatalError("a compact span is not a member: \(String(decoding: member, as: UTF8.self))")
        }
        precondition(JSONWriter.serialize(parsed) == member,
                     "a compact span differs from JSONWriter's text: \(String(decoding: member, as: UTF8.self))")
    }
    return 0
}
