import Foundation
@testable import SetteeReplicator
import SetteeTestSupport
import Testing

@Suite struct UploadBodyTests {
    func drain(_ body: UploadBody, bufferSize: Int) throws -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: bufferSize)
        while true {
            let n = try buffer.withUnsafeMutableBytes { try body.read(into: $0) }
            if n == 0 { return out }
            out += buffer[..<n]
        }
    }

    /// Memory pieces and spool files read in order, across buffer edges, and again after a rewind.
    @Test func segmentsReadInOrderAndAgainAfterRewind() throws {
        let dir = try TempDirectory(prefix: "upload")
        defer { dir.remove() }
        let spool = try SpoolFile(directory: dir.path)
        let fileBytes = (0..<100_003).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try spool.append(fileBytes)
        let body = UploadBody([.bytes(Array("head".utf8)), .file(spool), .bytes([]), .bytes(Array("tail".utf8))])
        let expected = Array("head".utf8) + fileBytes + Array("tail".utf8)
        #expect(body.length == Int64(expected.count))
        #expect(try drain(body, bufferSize: 999) == expected)
        #expect(try drain(body, bufferSize: 999).isEmpty)
        body.rewind()
        #expect(try drain(body, bufferSize: 65_536) == expected)
    }
}
