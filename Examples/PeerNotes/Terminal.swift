import Foundation

/// Standard input and output for a program that awaits: lines read on a thread of
/// their own (a blocking `read` must not hold one of Swift's cooperative threads),
/// output written and flushed line by line (a pipe would otherwise buffer it).
enum Terminal {
    /// The lines of standard input, until its end.
    static func lines() -> AsyncStream<String> {
        AsyncStream { continuation in
            let reader = Thread {
                while let line = readLine(strippingNewline: true) { continuation.yield(line) }
                continuation.finish()
            }
            reader.start()
        }
    }

    static func say(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func complain(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
