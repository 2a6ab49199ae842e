// libFuzzer target `selector`, compiled into the SetteeJSON module by fuzz/run.
//
// `_changes?filter=_selector` compiles a client's Mango selector and runs it
// against every document: neither may trap, whatever the selector holds
// (operators with wrong argument types, regexes, deep nesting). The input is a
// JSON array `[selector, document, ...]`.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSelector(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard case .array(let values)? = try? JSONReader.parse(bytes, maxDepth: 32), let first = values.first,
          let selector = try? Selector(first) else { return 0 }
    for document in values.dropFirst() { _ = selector.matches(document) }
    return 0
}
