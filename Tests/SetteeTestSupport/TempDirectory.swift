public import Foundation

/// A fresh, uniquely named directory under the system temp dir, removed by `remove()`
/// or when the value is deinitialized.
///
///     let dir = try TempDirectory()
///     defer { dir.remove() }
public final class TempDirectory: Sendable {
    /// Absolute path of the directory.
    public let path: String
    /// The directory as a file URL.
    public var url: URL { URL(fileURLWithPath: path, isDirectory: true) }

    /// Creates the directory, named `settee-<prefix>-<random>`.
    /// - Throws: the file system's error when it cannot be created.
    public init(prefix: String = "test") throws {
        let name = "settee-\(prefix)-\(UUID().uuidString.prefix(8).lowercased())"
        path = (NSTemporaryDirectory() as NSString).appendingPathComponent(name)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Path of `name` inside the directory.
    public func appending(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    /// Deletes the directory and everything in it; safe to call twice.
    public func remove() { try? FileManager.default.removeItem(atPath: path) }

    deinit { remove() }
}
