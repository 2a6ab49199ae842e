internal import CZlib

/// A streaming gzip encoder: feed it chunks, collect the compressed bytes it hands
/// back, then `finish()` for the trailer (CRC-32 and length, RFC 1952 §2.3).
///
/// Memory stays bounded by zlib's window plus one output buffer, whatever the total
/// size. Not thread-safe; use one instance per stream.
///
/// ```swift
/// let gz = try GzipCompressor()
/// for chunk in chunks { try await write(gz.compress(chunk)) }
/// try await write(gz.finish())
/// ```
final class GzipCompressor {
    /// zlib's default trade-off (`Z_DEFAULT_COMPRESSION`); CouchDB's
    /// `[attachments] compression_level` defaults to 8, any 1–9 is valid.
    static let defaultLevel = 6

    private let stream: UnsafeMutablePointer<z_stream>
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    private var isFinished = false

    /// A compressor at `level` (0 = store only … 9 = smallest).
    /// - Throws: `GzipError` if zlib cannot allocate its state or `level` is invalid.
    init(level: Int = GzipCompressor.defaultLevel) throws {
        guard (0...9).contains(level) else { throw GzipError(code: Z_STREAM_ERROR, message: "bad level \(level)") }
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let rc = settee_deflate_init_gzip(stream, Int32(level))
        guard rc == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw GzipError(code: rc, message: "deflateInit2 failed")
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Compresses `bytes`, returning whatever output zlib has ready (often nothing
    /// for small inputs: deflate buffers until it has a block's worth).
    /// - Throws: `GzipError` after `finish()` or if zlib fails.
    func compress(_ bytes: [UInt8]) throws -> [UInt8] {
        try run(bytes, flush: Z_NO_FLUSH)
    }

    /// Flushes the last block and writes the gzip trailer. Call exactly once.
    /// - Throws: `GzipError` if already finished or zlib fails.
    func finish() throws -> [UInt8] {
        let out = try run([], flush: Z_FINISH)
        isFinished = true
        return out
    }

    /// zlib's canonical loop (zlib.net/zlib_how.html): call `deflate` until it leaves
    /// room in the output buffer, which means it consumed all input; with `Z_FINISH`
    /// that is when it answers `Z_STREAM_END`. Input over 4 GiB is fed in slices
    /// because `avail_in` is 32-bit.
    private func run(_ input: [UInt8], flush: Int32) throws -> [UInt8] {
        guard !isFinished else { throw GzipError(code: Z_STREAM_ERROR, message: "compressor already finished") }
        var out: [UInt8] = []
        try input.withUnsafeBytes { raw in
            var offset = 0
            repeat {
                let slice = min(raw.count - offset, Int(UInt32.max / 2))
                let isLast = offset + slice == raw.count
                let base = raw.baseAddress.map { UnsafeMutablePointer(mutating: $0.assumingMemoryBound(to: Bytef.self)) }
                stream.pointee.next_in = base.map { $0 + offset }
                stream.pointee.avail_in = UInt32(slice)
                try drain(flush: isLast ? flush : Z_NO_FLUSH, into: &out)
                offset += slice
            } while offset < raw.count
        }
        stream.pointee.next_in = nil
        return out
    }

    private func drain(flush: Int32, into out: inout [UInt8]) throws {
        let capacity = buffer.count
        var rc: Int32 = Z_OK
        repeat {
            rc = buffer.withUnsafeMutableBytes { raw in
                stream.pointee.next_out = raw.baseAddress?.assumingMemoryBound(to: Bytef.self)
                stream.pointee.avail_out = UInt32(capacity)
                return deflate(stream, flush)
            }
            // Z_BUF_ERROR only means "no progress possible" and is not fatal (zlib.h).
            guard rc == Z_OK || rc == Z_STREAM_END || rc == Z_BUF_ERROR else {
                throw GzipError(code: rc, message: "deflate failed")
            }
            out += buffer[0..<(capacity - Int(stream.pointee.avail_out))]
        } while stream.pointee.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END)
    }
}

@available(*, unavailable)
extension GzipCompressor: Sendable {}
