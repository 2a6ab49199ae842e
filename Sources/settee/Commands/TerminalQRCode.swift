internal import CQREncode

/// A QR code drawn with Unicode half blocks, two module rows to a line, as
/// `qrencode -t UTF8` draws them: light modules (and the quiet zone) are the
/// terminal's foreground, so on the usual dark background the code reads dark on
/// light, the way a phone expects it.
struct TerminalQRCode {
    /// Modules of quiet zone around the code (ISO/IEC 18004 asks for 4).
    static let margin = 4

    /// Dark modules, row by row, without the quiet zone.
    let modules: [[Bool]]

    /// Encodes `text` as bytes with error correction level M (a terminal may be
    /// photographed at an angle). Nil if it does not fit in a QR code (about 2 KB).
    init?(_ text: String) {
        guard let code = QRcode_encodeString8bit(text, 0, QR_ECLEVEL_M) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        let data = code.pointee.data!
        // Bit 0 of each byte is the module's colour (1: dark); the others are libqrencode's.
        modules = (0..<width).map { y in (0..<width).map { x in data[y * width + x] & 1 == 1 } }
    }

    /// The lines to print.
    var lines: [String] {
        let size = modules.count + 2 * Self.margin
        func isLight(_ x: Int, _ y: Int) -> Bool {
            let (mx, my) = (x - Self.margin, y - Self.margin)
            guard mx >= 0, my >= 0, mx < modules.count, my < modules.count else { return true }
            return !modules[my][mx]
        }
        return stride(from: 0, to: size, by: 2).map { y in
            String((0..<size).map { x -> Character in
                switch (isLight(x, y), y + 1 < size ? isLight(x, y + 1) : false) {
                case (true, true): "█"
                case (true, false): "▀"
                case (false, true): "▄"
                case (false, false): " "
                }
            })
        }
    }
}
