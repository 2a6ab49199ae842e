internal import CJavaScriptCore
internal import Glibc

// No JavaScriptCore call here (those stay in JavaScriptEngine.swift: see `JavaScriptWatch`).
extension JavaScriptEngine {
    /// The process's resident memory in bytes (`/proc/self/statm`), 0 when unreadable: a
    /// call whose process grew by more than its memory limit allocated what the heap's
    /// figures do not show (a typed array filled in one native call runs past every check).
    public static func residentBytes() -> Int {
        guard let file = fopen("/proc/self/statm", "r") else { return 0 }
        defer { fclose(file) }
        var size = 0
        var resident = 0
        guard withUnsafeMutablePointer(to: &size, { sizePointer in
            withUnsafeMutablePointer(to: &resident) { residentPointer in
                settee_read_statm(file, sizePointer, residentPointer)
            }
        }) == 2 else { return 0 }
        return resident * sysconf(Int32(_SC_PAGESIZE))
    }
}
