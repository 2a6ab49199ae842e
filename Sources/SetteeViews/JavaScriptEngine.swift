internal import CJavaScriptCore
internal import Glibc
internal import Synchronization
public import SetteeJSON

/*
 One JavaScriptCore context that runs a design document's functions, CouchDB's
 query-server API in a prelude written in JavaScript (emit, log, sum, toJSON,
 isArray), so no C callback has to find its way back into Swift. Documents go in
 and emitted rows come out as JSON text (JSON.parse and JSON.stringify inside the
 engine), a batch of documents per call.

 An engine is used by one thread at a time: the server checks engines out to the
 threads of its JavaScript service (`JavaScriptThreads`), never to Swift's cooperative
 pool; the engine's own lock only keeps that true if a caller ever shares one. A call
 that runs longer than its time limit (CouchDB's `[couchdb] os_process_timeout`, 5 s)
 or grows the engine's heap past its memory limit is stopped (`JavaScriptLimits`,
 `JavaScriptWatch`), and the engine is then discarded by its owner (`wasStopped`).
*/

public final class JavaScriptEngine: @unchecked Sendable {
    // @unchecked: every use of the context is under `lock`.
    let lock = Mutex<Void>(())
    private let group: JSContextGroupRef
    private let context: JSGlobalContextRef
    var functions: [JSObjectRef] = []
    private let watch = JavaScriptWatch()
    /// The allocation guards' handle (`allocationGuards`): sets the limit of the next
    /// call, and tells whether the last one was refused an allocation. Reachable from
    /// no global, so design document code cannot call it.
    private var allocationControl: JSObjectRef?
    /// The limits each call reads as it starts (the node's, which its configuration changes).
    private let limits: JavaScriptLimitsSetting
    /// Whether a call was stopped by its time or memory limit: whatever it left behind
    /// (a half-built object graph, gigabytes of buffers) is best thrown away with the
    /// engine rather than kept (issue #46, item 5).
    public var wasStopped: Bool { watch.hasStopped }

    /// Hands memory freed by released engines back to the system: JavaScriptCore's
    /// allocator and glibc both keep freed pages for reuse unless told (malloc_trim(3)).
    public static func returnFreedMemory() {
        guard isAvailable else { return }
        settee_jsc_release_free_memory()  // JavaScriptCore's own allocator (libpas) first
        _ = settee_malloc_trim()
    }

    /// Whether JavaScriptCore could be loaded: `$SETTEE_JAVASCRIPT_LIBRARY`, else Debian's
    /// libjavascriptcoregtk-4.1-0. Without it Settee serves everything but design
    /// document functions (the small container image leaves it out).
    public static let isAvailable: Bool = {
        let path = getenv("SETTEE_JAVASCRIPT_LIBRARY").map { String(cString: $0) } ?? "libjavascriptcoregtk-4.1.so.0"
        return settee_jsc_load(path) == 1
    }()

    public static let unavailable = JavaScriptError(
        message: "Design document functions need JavaScriptCore (Debian's libjavascriptcoregtk-4.1-0), which is not installed.",
        isUnavailable: true)

    /// Seconds one call may run by default (`[couchdb] os_process_timeout`).
    public static let timeLimit = 5.0

    /// An engine whose calls take `limits` (CouchDB's defaults unless told).
    public convenience init(limits: JavaScriptLimits = JavaScriptLimits()) throws(JavaScriptError) {
        try self.init(limits: JavaScriptLimitsSetting(limits))
    }

    /// An engine whose calls take the limits `limits` holds as each call starts.
    public init(limits: JavaScriptLimitsSetting) throws(JavaScriptError) {
        guard Self.isAvailable else { throw Self.unavailable }
        self.limits = limits
        group = JSContextGroupCreate()
        context = JSGlobalContextCreateInGroup(group, nil)
        watch.group = group
        watch.arm()
        let control = try evaluate(Self.allocationGuards)
        guard let controlObject = JSValueToObject(context, control, nil), JSObjectIsFunction(context, controlObject) else {
            throw JavaScriptError(message: "the allocation guards did not install")
        }
        JSValueProtect(context, controlObject)
        allocationControl = controlObject
        _ = try evaluate(Self.prelude)
        _ = try evaluate(Self.renderPrelude)
    }

    deinit {
        for function in functions { JSValueUnprotect(context, function) }
        if let allocationControl { JSValueUnprotect(context, allocationControl) }
        // Collected before release: releasing only reports the graph as abandoned, and a
        // stopped memory bomb's buffers would wait for a collection that never comes.
        JSGarbageCollect(context)
        JSGlobalContextRelease(context)
        JSContextGroupRelease(group)
    }

    /// Compiles `source`, a function expression such as `function(doc) { emit(doc._id, 1) }`.
    /// With `modules` (the design document, or the part of it CouchDB lets the function
    /// see: `{"views": {"lib": ...}}` for a map function), the function can `require`
    /// CommonJS modules from it by path, e.g. `require('views/lib/dates')`.
    /// - Returns: a handle for `map` and `reduce`.
    /// - Throws: the engine's message for a syntax error or a source that is not a function.
    public func compile(_ source: String, modules: JSONValue? = nil) throws(JavaScriptError) -> Int {
        var script = FunctionSource.expression(source)
        if let modules {
            script = "(function() { var require = __makeRequire(" + JSONWriter.string(modules)
                + "); return " + script + "; })()"
        }
        return try compile(script: script, source: source)
    }

    /// Compiles a show, list or update function of `designDocument` (with its `_id` and
    /// `_rev`): it runs with the design document as `this` and `require`s from all of it,
    /// as CouchDB's query server runs them.
    public func compile(_ source: String, designDocument: JSONValue) throws(JavaScriptError) -> Int {
        let script = "(function() { var __ddoc = " + JSONWriter.string(designDocument)
            + "; var require = __makeRequire(__ddoc); var __f = " + FunctionSource.expression(source) + ";"
            + " if (typeof __f !== 'function') return __f;"
            + " var bound = function() { return __f.apply(__ddoc, arguments); }; bound.__ddoc = __ddoc; return bound; })()"
        return try compile(script: script, source: source)
    }

    private func compile(script: String, source: String) throws(JavaScriptError) -> Int {
        try lock.withLock { _ throws(JavaScriptError) -> Int in
            let value = try evaluate(script)
            guard JSValueIsObject(context, value), let object = JSValueToObject(context, value, nil),
                  JSObjectIsFunction(context, object) else {
                throw JavaScriptError(message: "Expression does not eval to a function. (\(source))")
            }
            JSValueProtect(context, object)
            functions.append(object)
            return functions.count - 1
        }
    }

    /// Runs map function `function` over `documents` (JSON text of each, with `_id`
    /// and `_rev`): for each document, its emitted `[key, value]` pairs, or nil when
    /// the function threw for it (CouchDB logs that and indexes nothing for it).
    public func map(_ function: Int, documents: [String]) throws(JavaScriptError) -> [[JSONValue]?] {
        let answer = try map([function], documents: documents.map { Array($0.utf8) })
        guard case .array(let perDocument) = try Self.parse(String(decoding: answer.text, as: UTF8.self)) else { return [] }
        return perDocument.map { rows in rows.arrayValue }
    }

    /// Runs map functions `functions` (of one design document) over `documents` (the JSON
    /// text of each, with `_id` and `_rev`) in one call: each document is parsed once,
    /// deep-frozen as CouchDB's query server seals it, and passed to every function in
    /// turn (couchjs's `map_doc`).
    /// - Returns: per document, per function in order, its rows (`MapAnswer`).
    public func map(_ functions: [Int], documents: [[UInt8]]) throws(JavaScriptError) -> MapAnswer {
        var text: [UInt8] = [UInt8(ascii: "[")]
        text.reserveCapacity(documents.reduce(2) { $0 + $1.count + 1 })
        for (position, document) in documents.enumerated() {
            if position > 0 { text.append(UInt8(ascii: ",")) }
            text.append(contentsOf: document)
        }
        text.append(UInt8(ascii: "]"))
        return try map(functions, documentArray: text, count: documents.count)
    }

    /// `map(_:documents:)` of the `count` documents of `text`, a JSON array of them
    /// (written by the caller straight into one buffer, with no text of its own for each).
    public func map(_ functions: [Int], documentArray text: [UInt8], count: Int) throws(JavaScriptError) -> MapAnswer {
        var text = text
        text.append(0)
        let answer = try lock.withLock { _ throws(JavaScriptError) -> [UInt8] in
            let docs = try text.withUnsafeBytes { bytes in
                Result { () throws(JavaScriptError) in
                    guard let start = bytes.assumingMemoryBound(to: CChar.self).baseAddress else { throw Self.notParsed }
                    return try parseJSON(cString: start)
                }
            }.get()
            return try callReturningBytes("__mapDocs", [docs] + functions.map { self.functions[$0] })
        }
        return MapAnswer(text: answer, functions: functions.count, documents: count)
    }

    /// Runs reduce function `function` over `keys` (each `[key, docid]`, or null when
    /// rereducing) and `values`.
    public func reduce(_ function: Int, keys: JSONValue, values: JSONValue, rereduce: Bool) throws(JavaScriptError) -> JSONValue {
        let result = try lock.withLock { _ throws(JavaScriptError) -> String in
            let keysValue = try parseJSON(JSONWriter.string(keys))
            let valuesValue = try parseJSON(JSONWriter.string(values))
            return try call("__reduce", [functions[function], keysValue, valuesValue, JSValueMakeBoolean(context, rereduce)])
        }
        guard case .array(let wrapped) = try Self.parse(result), let first = wrapped.first else { return .null }
        return first
    }

    /// Runs `validate_doc_update` function `function`: `{"ok": true}`, `{"forbidden": ...}`,
    /// `{"unauthorized": ...}`, or `{"error": ...}` for anything else it threw. The
    /// arguments are JSON texts (`oldDocument` "null" for a new document).
    public func validate(_ function: Int, newDocument: String, oldDocument: String, userContext: String,
                         securityObject: String) throws(JavaScriptError) -> JSONValue {
        let result = try lock.withLock { _ throws(JavaScriptError) -> String in
            try call("__validate", [functions[function], try parseJSON(newDocument), try parseJSON(oldDocument),
                                    try parseJSON(userContext), try parseJSON(securityObject)])
        }
        return try Self.parse(result)
    }

    /// Runs filter function `function` on a document (JSON text) and the request object:
    /// whether the change passes.
    /// - Throws: what the function threw, as its message (CouchDB fails the whole request).
    public func filter(_ function: Int, document: String, request: String) throws(JavaScriptError) -> Bool {
        let result = try lock.withLock { _ throws(JavaScriptError) -> String in
            try call("__filter", [functions[function], try parseJSON(document), try parseJSON(request)])
        }
        if result.hasPrefix("throw:") { throw JavaScriptError(message: String(result.dropFirst(6))) }
        return result == "true"
    }

    // MARK: JavaScriptCore calls (under `lock`)

    private func evaluate(_ source: String) throws(JavaScriptError) -> JSValueRef {
        let script = JSStringCreateWithUTF8CString(source)
        defer { JSStringRelease(script) }
        var exception: JSValueRef?
        begin()
        let value = JSEvaluateScript(context, script, nil, nil, 1, &exception)
        if let message = stopMessage() { throw JavaScriptError(message: message) }
        if let exception { throw JavaScriptError(message: string(exception)) }
        guard let value else { throw JavaScriptError(message: "no value") }
        return value
    }

    /// Starts the watch and tells the allocation guards the limit of the call about to run.
    private func begin() {
        let limits = self.limits.value
        watch.begin(limits)
        _ = exchangeWithGuards(limits.memoryBytes)
    }

    /// Calls the guards' handle: sets the limit `bytes`; whether an allocation was refused
    /// since the last exchange.
    private func exchangeWithGuards(_ bytes: Int) -> Bool {
        guard let allocationControl else { return false }
        let argument: [JSValueRef?] = [JSValueMakeNumber(context, Double(bytes))]
        let refused = argument.withUnsafeBufferPointer { buffer in
            JSObjectCallAsFunction(context, allocationControl, nil, 1, buffer.baseAddress, nil)
        }
        return refused.map { JSValueToBoolean(context, $0) } ?? false
    }

    /// The watch's message when it stopped the last call, or the guards refused it an
    /// allocation (even one the function caught: the call is failed and the engine
    /// discarded, as when the watch stops it); the heap a memory bomb left is collected
    /// at once rather than at the next call's allocations.
    private func stopMessage() -> String? {
        if exchangeWithGuards(watch.limits.memoryBytes) { watch.stop(.memory) }
        guard let message = watch.message else { return nil }
        if watch.stopped == .memory { JSGarbageCollect(context) }
        return message
    }

    func parseJSON(_ text: String) throws(JavaScriptError) -> JSValueRef {
        try text.withCString { cString in Result { () throws(JavaScriptError) in try parseJSON(cString: cString) } }.get()
    }

    private static let notParsed = JavaScriptError(message: "invalid JSON passed to the engine")

    /// `parseJSON` of UTF-8 text ending with a NUL byte (none can be inside JSON text).
    func parseJSON(cString text: UnsafePointer<CChar>) throws(JavaScriptError) -> JSValueRef {
        let string = JSStringCreateWithUTF8CString(text)
        defer { JSStringRelease(string) }
        guard let value = JSValueMakeFromJSONString(context, string) else { throw Self.notParsed }
        return value
    }

    func call(_ name: String, _ arguments: [JSValueRef?]) throws(JavaScriptError) -> String {
        try string(callReturningString(name, arguments))
    }

    /// `call`, its answer as UTF-8 bytes (no `String` made of a batch's answer).
    func callReturningBytes(_ name: String, _ arguments: [JSValueRef?]) throws(JavaScriptError) -> [UInt8] {
        try bytes(callReturningString(name, arguments))
    }

    /// A JavaScript string as UTF-8 bytes, copied once (no `String` made of it). Here with
    /// every other call into JavaScriptCore: see the function table in CJavaScriptCore's shim.
    private func bytes(_ value: JSValueRef) -> [UInt8] {
        guard let text = JSValueToStringCopy(context, value, nil) else { return [] }
        defer { JSStringRelease(text) }
        let capacity = JSStringGetMaximumUTF8CStringSize(text)
        return [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            let written = UnsafeMutableRawBufferPointer(buffer).withMemoryRebound(to: CChar.self) {
                JSStringGetUTF8CString(text, $0.baseAddress, capacity)
            }
            count = max(0, written - 1)  // without the NUL
        }
    }

    func callReturningString(_ name: String, _ arguments: [JSValueRef?]) throws(JavaScriptError) -> JSValueRef {
        let nameString = JSStringCreateWithUTF8CString(name)
        defer { JSStringRelease(nameString) }
        let global = JSContextGetGlobalObject(context)
        var exception: JSValueRef?
        guard let function = JSValueToObject(context, JSObjectGetProperty(context, global, nameString, nil), nil) else {
            throw JavaScriptError(message: "\(name) is missing")
        }
        begin()
        let result = arguments.withUnsafeBufferPointer { buffer in
            JSObjectCallAsFunction(context, function, nil, buffer.count, buffer.baseAddress, &exception)
        }
        if let message = stopMessage() { throw JavaScriptError(message: message) }
        if let exception { throw JavaScriptError(message: string(exception)) }
        guard let result, JSValueIsString(context, result) else {
            throw JavaScriptError(message: "the function did not return")  // stopped by the time limit
        }
        return result
    }

    private func string(_ value: JSValueRef) -> String {
        guard let text = JSValueToStringCopy(context, value, nil) else { return "" }
        defer { JSStringRelease(text) }
        let capacity = JSStringGetMaximumUTF8CStringSize(text)
        var buffer = [CChar](repeating: 0, count: capacity)
        _ = JSStringGetUTF8CString(text, &buffer, capacity)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func parse(_ text: String) throws(JavaScriptError) -> JSONValue {
        do { return try JSONReader.parse(text) } catch { throw JavaScriptError(message: "emitted something that is not JSON") }
    }
}

// Here, not in JavaScriptLimits.swift: see `JavaScriptWatch`.
extension JavaScriptWatch {
    /// Sets (or, from the check, sets again) the timer: JavaScriptCore does not re-arm it
    /// by itself when a check lets the script go on. Not the limit itself: how often the
    /// watch looks at a running script.
    func arm() {
        guard let group else { return }
        JSContextGroupSetExecutionTimeLimit(group, Self.interval, { context, info in
            guard let context, let info else { return true }
            let watch = Unmanaged<JavaScriptWatch>.fromOpaque(info).takeUnretainedValue()
            if watch.check(context) { return true }
            watch.arm()
            return false
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// The engine's heap: its objects and the memory they hold outside it (strings, buffers).
    static func heapBytes(_ context: JSContextRef) -> Int {
        guard let statistics = JSGetMemoryUsageStatistics(context) else { return 0 }
        var total = 0.0
        for name in ["heapSize", "extraMemorySize"] {
            let key = JSStringCreateWithUTF8CString(name)
            defer { JSStringRelease(key) }
            total += JSValueToNumber(context, JSObjectGetProperty(context, statistics, key, nil), nil)
        }
        return total.isFinite ? Int(total) : 0
    }
}
