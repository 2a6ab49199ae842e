import SetteeJSON
import SetteeStore

extension ViewHandlers {
    /// A map row without its document, `{"id":…,"key":…,"value":…}`, its key and value
    /// copied from the stored `[key, value]` (written by `JSONWriter` when the view was
    /// built) rather than parsed and written again: most of a point query's rendering.
    /// False, writing nothing, when the stored text is not that compact pair.
    static func writeStoredRow(_ row: KeyIndexRow, to out: inout [UInt8]) -> Bool {
        row.value.withUnsafeBufferPointer { stored in
            guard let (key, value) = JSONSpanScanner.compactPair(in: stored) else { return false }
            out.append(contentsOf: #"{"id":"#.utf8)
            JSONWriter.writeString(row.id, to: &out)
            out.append(contentsOf: #","key":"#.utf8)
            out.append(contentsOf: stored[key])
            out.append(contentsOf: #","value":"#.utf8)
            out.append(contentsOf: stored[value])
            out.append(UInt8(ascii: "}"))
            return true
        }
    }
}
