internal import Synchronization

/// A request body made of pieces in memory and spool files, read by the curl
/// thread as it sends (`CURLOPT_READFUNCTION`): a multipart `PUT` of a 1 GiB
/// attachment never holds more than curl's buffer of it in memory.
///
/// Reads are positional, so the body can be sent again from the start (`rewind`)
/// when curl retries on a fresh connection.
final class UploadBody: Sendable {
    enum Segment: Sendable {
        case bytes([UInt8])
        case file(SpoolFile)

        var length: Int64 {
            switch self {
            case .bytes(let bytes): Int64(bytes.count)
            case .file(let spool): spool.length
            }
        }
    }

    let segments: [Segment]
    /// The total byte count (the `Content-Length` sent).
    let length: Int64
    /// Where the next read starts: a segment and an offset in it.
    private let position = Mutex<(segment: Int, offset: Int64)>((0, 0))

    init(_ segments: [Segment]) {
        self.segments = segments
        length = segments.reduce(0) { $0 + $1.length }
    }

    /// Starts over from the first byte.
    func rewind() { position.withLock { $0 = (0, 0) } }

    /// Fills `buffer` with the next bytes. - Returns: how many; 0 at the end.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        try position.withLock { at -> Int in
            var filled = 0
            while filled < buffer.count, at.segment < segments.count {
                let target = UnsafeMutableRawBufferPointer(rebasing: buffer[filled...])
                let n: Int
                switch segments[at.segment] {
                case .bytes(let bytes):
                    n = min(target.count, bytes.count - Int(at.offset))
                    bytes.withUnsafeBytes { source in
                        target.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[Int(at.offset)..<Int(at.offset) + n]))
                    }
                case .file(let spool):
                    n = try spool.read(at: at.offset, into: target)
                }
                filled += n
                at.offset += Int64(n)
                if n == 0 || at.offset >= segments[at.segment].length { at = (at.segment + 1, 0) }
            }
            return filled
        }
    }
}
