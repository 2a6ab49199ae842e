internal import CZlib

/// A streaming gzip decoder with pull-style output, so that a small compressed
/// input can never force a large allocation (a "zip bomb" yields its output in
/// `maxLength` pieces, as fast as the caller consumes them).
///
/// State machine: `feed` appends input; `read` returns the next piece of output, or
/// nil when it needs more input (or the stream has ended); `finish` checks that the
/// stream ended cleanly. Concatenated gzip members are decoded as one stream, as
/// RFC 1952 §2.2 allows ("A gzip file consists of a series of members").
///
/// ```swift
/// let gunzip = try GzipDecompressor()
/// for try await chunk in body {
///     gunzip.feed(chunk)
///     while let plain = try gunzip.read() { try await write(plain) }
/// }
/// try gunzip.finish()
/// ```
final class GzipDecompressor {
    private let stream: UnsafeMutablePointer<z_stream>
    private var pending: [UInt8] = []
    private var pendingOffset = 0
    private var sawEnd = false
    /// Whether any member has started since the last end (false before any input).
    private var isInsideMember = false

    /// A decoder that accepts only gzip-wrapped deflate data.
    /// - Throws: `GzipError` if zlib cannot allocate its state.
    init() throws {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let rc = settee_inflate_init_gzip(stream)
        guard rc == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw GzipError(code: rc, message: "inflateInit2 failed")
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Whether the input so far ends exactly at the end of a gzip member.
    var isAtEndOfStream: Bool { sawEnd && !isInsideMember && pendingOffset == pending.count }

    /// Queues `bytes` for decoding; call `read()` until it returns nil afterwards.
    func feed(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        if pendingOffset == pending.count {
            pending = bytes
        } else {
            pending.removeFirst(pendingOffset)
            pending += bytes
        }
        pendingOffset = 0
    }

    /// The next piece of decoded output (at most `maxLength` bytes), or nil when all
    /// input fed so far has been consumed.
    /// - Throws: `GzipError` for corrupt data (bad header, CRC or length mismatch).
    func read(maxLength: Int = 64 * 1024) throws -> [UInt8]? {
        precondition(maxLength > 0, "GzipDecompressor.read needs room for output")
        var out = [UInt8](repeating: 0, count: maxLength)
        var produced = 0
        while produced < maxLength, pendingOffset < pending.count {
            if sawEnd && !isInsideMember {
                // Another member follows (RFC 1952 §2.2): start over on it.
                inflateReset(stream)
                sawEnd = false
            }
            isInsideMember = true
            let (consumed, written, rc) = step(output: &out, from: produced)
            pendingOffset += consumed
            produced += written
            if rc == Z_STREAM_END {
                sawEnd = true
                isInsideMember = false
            } else if rc != Z_OK && rc != Z_BUF_ERROR {
                throw GzipError(code: rc, message: "inflate failed: corrupt gzip data")
            } else if consumed == 0 && written == 0 {
                break
            }
        }
        if pendingOffset == pending.count { pending = []; pendingOffset = 0 }
        guard produced > 0 else { return nil }
        out.removeLast(maxLength - produced)
        return out
    }

    /// Checks that the input ended at the end of a complete gzip member.
    /// - Throws: `GzipError` when the stream is truncated, empty, or input is left
    ///   unread (call `read()` until nil first).
    func finish() throws {
        guard pendingOffset == pending.count else {
            throw GzipError(code: Z_STREAM_ERROR, message: "finish() with undecoded input left")
        }
        guard sawEnd && !isInsideMember else {
            throw GzipError(code: Z_BUF_ERROR, message: "truncated gzip stream")
        }
    }

    /// One `inflate` call over the pending input into `output[from...]`.
    private func step(output: inout [UInt8], from start: Int) -> (consumed: Int, written: Int, rc: Int32) {
        let available = pending.count - pendingOffset
        let inCount = min(available, Int(UInt32.max / 2))
        let outCount = min(output.count - start, Int(UInt32.max / 2))
        let rc: Int32 = pending.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { out in
                let inBase = input.baseAddress.map { $0.assumingMemoryBound(to: Bytef.self) + pendingOffset }
                stream.pointee.next_in = inBase.map { UnsafeMutablePointer(mutating: $0) }
                stream.pointee.avail_in = UInt32(inCount)
                stream.pointee.next_out = out.baseAddress.map { $0.assumingMemoryBound(to: Bytef.self) + start }
                stream.pointee.avail_out = UInt32(outCount)
                let rc = inflate(stream, Z_NO_FLUSH)
                stream.pointee.next_in = nil
                stream.pointee.next_out = nil
                return rc
            }
        }
        let consumed = inCount - Int(stream.pointee.avail_in)
        let written = outCount - Int(stream.pointee.avail_out)
        // Z_NEED_DICT never applies to gzip; zlib.h says to treat it like a data error.
        return (consumed, written, rc == Z_NEED_DICT ? Z_DATA_ERROR : rc)
    }
}

@available(*, unavailable)
extension GzipDecompressor: Sendable {}
