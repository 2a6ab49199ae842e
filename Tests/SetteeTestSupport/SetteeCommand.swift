public import Foundation

/// The built `settee` run as a one-shot command (`check`, `backup`, `restore`...), without
/// the caller's `SETTEE_*` variables unless `environment` names them.
public enum SetteeCommand {
    /// - Returns: its exit status and its standard output.
    public static func run(_ arguments: [String], environment: [String: String] = [:]) throws
        -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = try SetteeProcess.binaryURL()
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SETTEE_") }
            .merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }
}
