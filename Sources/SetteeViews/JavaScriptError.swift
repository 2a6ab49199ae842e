/// Why a design document function could not be compiled or run.
public struct JavaScriptError: Error, Sendable, CustomStringConvertible {
    public let message: String
    /// No engine: the library is not installed (`JavaScriptEngine.isAvailable`).
    public var isUnavailable = false
    /// Not run: too many calls were waiting for a thread (`JavaScriptThreads`).
    public var isOverloaded = false
    public var description: String { message }

    public init(message: String, isUnavailable: Bool = false, isOverloaded: Bool = false) {
        self.message = message
        self.isUnavailable = isUnavailable
        self.isOverloaded = isOverloaded
    }

    static func overloaded(_ why: String) -> JavaScriptError {
        JavaScriptError(message: "The JavaScript service is overloaded: \(why).", isOverloaded: true)
    }
}
