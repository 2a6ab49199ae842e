import Testing
@testable import SetteeStore

@Suite struct GzipTests {
    /// Deterministic pseudo-random bytes (incompressible) mixed with text (compressible).
    static func sample(count: Int, seed: UInt64 = 42) -> [UInt8] {
        var state = seed
        return (0..<count).map { i in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return i % 3 == 0 ? UInt8(truncatingIfNeeded: state >> 33) : UInt8(0x61 + i % 26)
        }
    }

    @Test func oneShotRoundTrip() throws {
        let plain = Array("hello, settee\n".utf8)
        let gz = try Gzip.compress(plain)
        #expect(gz.prefix(2) == [0x1F, 0x8B])  // gzip magic, RFC 1952 §2.3.1
        #expect(try Gzip.decompress(gz) == plain)
    }

    @Test func emptyInputRoundTrip() throws {
        let gz = try Gzip.compress([])
        #expect(try Gzip.decompress(gz) == [])
    }

    @Test func multiChunkRoundTrip() throws {
        let plain = Self.sample(count: 700_000)
        let compressor = try GzipCompressor()
        var gz: [UInt8] = []
        var i = 0
        while i < plain.count {
            let n = min(4093, plain.count - i)
            gz += try compressor.compress(Array(plain[i..<(i + n)]))
            i += n
        }
        gz += try compressor.finish()

        let gunzip = try GzipDecompressor()
        var out: [UInt8] = []
        var j = 0
        while j < gz.count {
            let n = min(777, gz.count - j)
            gunzip.feed(Array(gz[j..<(j + n)]))
            while let piece = try gunzip.read(maxLength: 1000) {
                #expect(piece.count <= 1000)
                out += piece
            }
            j += n
        }
        try gunzip.finish()
        #expect(out == plain)
    }

    @Test func outputIsBoundedForHighlyCompressibleInput() throws {
        let gz = try Gzip.compress([UInt8](repeating: 0, count: 5_000_000))
        #expect(gz.count < 10_000)
        let gunzip = try GzipDecompressor()
        gunzip.feed(gz)
        var total = 0
        while let piece = try gunzip.read(maxLength: 65_536) {
            #expect(piece.count <= 65_536)
            total += piece.count
        }
        try gunzip.finish()
        #expect(total == 5_000_000)
        #expect(throws: GzipError.self) { try Gzip.decompress(gz, limit: 1_000_000) }
    }

    @Test func concatenatedMembersDecodeAsOne() throws {
        let gz = try Gzip.compress(Array("abc".utf8)) + Gzip.compress(Array("def".utf8))
        #expect(try Gzip.decompress(gz) == Array("abcdef".utf8))
    }

    @Test func truncatedStreamThrows() throws {
        let gz = try Gzip.compress(Self.sample(count: 10_000))
        #expect(throws: GzipError.self) { try Gzip.decompress(Array(gz.dropLast(4))) }
        #expect(throws: GzipError.self) { try Gzip.decompress([]) }
    }

    @Test func corruptDataThrows() throws {
        var gz = try Gzip.compress(Self.sample(count: 10_000))
        gz[gz.count - 6] ^= 0xFF  // inside the CRC-32 trailer
        #expect(throws: GzipError.self) { try Gzip.decompress(gz) }
        #expect(throws: GzipError.self) { try Gzip.decompress(Array("not gzip at all".utf8)) }
    }

    @Test func compressAfterFinishThrows() throws {
        let compressor = try GzipCompressor(level: 9)
        _ = try compressor.finish()
        #expect(throws: GzipError.self) { try compressor.compress([1]) }
        #expect(throws: GzipError.self) { try GzipCompressor(level: 12) }
    }

    @Test(arguments: [
        ("text/plain", true), ("text/html; charset=utf-8", true), ("application/json", true),
        ("Application/JSON", true), ("application/javascript", true), ("application/xml", true),
        ("application/octet-stream", false), ("image/png", false), ("textual/plain", false),
    ])
    func compressibleTypes(type: String, expected: Bool) {
        #expect(Gzip.isCompressible(contentType: type) == expected)
    }
}
