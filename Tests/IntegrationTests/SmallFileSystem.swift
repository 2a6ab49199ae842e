import Foundation
import SetteeTestSupport

/// A tmpfs of a few megabytes mounted on a fresh directory, for tests of a full disk
/// (issue #44, item 1). Mounting needs root (or CAP_SYS_ADMIN); `canMount` says whether
/// this machine lets the tests do it. `resize` frees space (or takes it) with no unmount,
/// as deleting files would on a real disk. Unmounted when released.
final class SmallFileSystem {
    let directory: TempDirectory
    var path: String { directory.path }

    init(megabytes: Int) throws {
        directory = try TempDirectory(prefix: "smallfs")
        try Self.mount(["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", directory.path])
    }

    /// Changes the file system's size (`mount -o remount,size=`): what is stored stays.
    func resize(megabytes: Int) throws {
        try Self.mount(["-o", "remount,size=\(megabytes)m", directory.path])
    }

    deinit {
        _ = try? Self.run("/usr/bin/umount", ["-l", directory.path])
    }

    /// Whether a tmpfs can be mounted here (checked once, by mounting and unmounting one).
    static let canMount: Bool = {
        guard let probe = try? SmallFileSystem(megabytes: 1) else { return false }
        _ = probe
        return true
    }()

    private static func mount(_ arguments: [String]) throws {
        let status = try run("/usr/bin/mount", arguments)
        guard status == 0 else { throw TestSupportError.badResponse("mount \(arguments.joined(separator: " ")) exited \(status)") }
    }

    private static func run(_ tool: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
