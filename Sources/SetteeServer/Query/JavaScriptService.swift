internal import Glibc
import Logging
import SetteeJSON
import SetteeStore
import SetteeViews
internal import Synchronization

/*
 The one home of design document JavaScript (issue #46, item 8), owned by the node:
 shows, lists, updates, `_changes` filters, `validate_doc_update`, views' map and
 reduce functions all run here, and nowhere else.

 - Threads: every call runs on `JavaScriptThreads` (a bounded pool of dedicated
   threads and a bounded queue), never on Swift's cooperative pool and never inside a
   store transaction; callers suspend until their answer (`call`). A full queue is a
   503, so no amount of JavaScript delays requests that run none.
 - Engines: compiled code is kept per design document *of a database*
   (`DesignCode`: the database object, the document's id, revision and a digest of its
   whole content), in engines checked out to one call at a time; equal design
   documents of two databases never share an engine or its globals (item 2).
 - Memory (item 5): no call allocates past the memory limit in one native call (the
   engine's allocation guards), nor grows its heap past it between two looks of the
   watch; an engine whose call was stopped or refused, or during whose call the process
   grew past the limit, is released at once and the freed pages handed back to the
   system. Idle engines are kept up to `engineLimit` and to `idleMemoryBudget` at the
   limit each (least recently used released first), so all engines together hold at most
   `idleMemoryBudget` + threads × limit, plus what the guards cannot see (README, Security).
 - Limits: one `JavaScriptLimitsSetting` per node, set by its configuration.
*/

/// Runs design document functions for one node.
final class JavaScriptService: Sendable {
    let threads: JavaScriptThreads
    let limits: JavaScriptLimitsSetting
    /// Idle engines kept for reuse, in all.
    let engineLimit: Int
    /// Memory the idle engines may hold in all, each counted at the memory limit (which
    /// a kept engine's heap is under): 16 engines at CouchDB's 64 MiB, fewer at a higher limit.
    static let idleMemoryBudget = 1 << 30
    private let pool = Mutex(EnginePool())
    /// 5xx answers design document code caused: one log line per client a minute at most.
    let failureLog = SecurityRefusalLog(verb: "JavaScript answered", level: .error)

    /// - Parameters:
    ///   - threadCount: threads that run JavaScript (default: one per core).
    ///   - queueLimit: calls that may wait for a thread before new ones get 503.
    init(threadCount: Int? = nil, queueLimit: Int = 256, limits: JavaScriptLimits = JavaScriptLimits(),
         engineLimit: Int = 16) {
        let cores = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        let setting = JavaScriptLimitsSetting(limits)
        self.limits = setting
        // A call waits at most as long as one may run (at least 5 s), then is refused (503).
        threads = JavaScriptThreads(threadCount: threadCount ?? cores, queueLimit: queueLimit,
                                    maximumWait: { max(setting.value.time, 5) })
        self.engineLimit = max(1, engineLimit)
    }

    /// Runs `body` with `function` compiled in an engine of its design document, on the
    /// service's threads.
    /// - Throws: `CouchError` 400 `compilation_error` (the function does not compile),
    ///   501 (no engine at all), 503 (overloaded); the `JavaScriptError` `body` threw.
    func call<T: Sendable>(_ function: DesignFunction,
                           _ body: @escaping @Sendable (JavaScriptEngine, Int) throws(JavaScriptError) -> T)
        async throws -> T {
        try Self.requireJavaScript(function)
        let outcome: Result<T, CallFailure>
        do {
            outcome = try await threads.run {
                self.performAndReturnMemory([function]) { (engine, handles) throws(JavaScriptError) in
                    try body(engine, handles[0])
                }
            }
        } catch {
            throw Self.overloaded(error)
        }
        return try Self.unwrap(outcome)
    }

    /// `call` for a caller that must stay synchronous (the store's index builder): each
    /// of `parts` runs as its own call, at once on as many threads; blocks until all are done.
    func callAndWait<T: Sendable>(_ function: DesignFunction, parts: Int,
                                  _ body: @escaping @Sendable (Int, JavaScriptEngine, Int) throws(JavaScriptError) -> T)
        throws -> [T] {
        try callAndWait([function], parts: parts) { (part, engine, handles) throws(JavaScriptError) in
            try body(part, engine, handles[0])
        }
    }

    /// `callAndWait` with several functions of one design document compiled in the same
    /// engine (a design document's map functions, called together): `body` gets their
    /// handles in order.
    func callAndWait<T: Sendable>(_ functions: [DesignFunction], parts: Int,
                                  _ body: @escaping @Sendable (Int, JavaScriptEngine, [Int]) throws(JavaScriptError) -> T)
        throws -> [T] {
        precondition(!functions.isEmpty, "a call runs at least one function")
        try Self.requireJavaScript(functions[0])
        let outcomes: [Result<T, CallFailure>]
        do {
            outcomes = try threads.runAndWait(parts: parts) { part in
                self.performAndReturnMemory(functions) { (engine, handles) throws(JavaScriptError) in
                    try body(part, engine, handles)
                }
            }
        } catch {
            throw Self.overloaded(error)
        }
        return try outcomes.map { try Self.unwrap($0) }
    }

    /// A function this service can run: JavaScript (500 `unknown_query_language` for another
    /// language's, as couch_query_servers:get_os_process/1 answers), with an engine (501).
    private static func requireJavaScript(_ function: DesignFunction) throws {
        if let language = function.code.unknownLanguage { throw CouchError(500, "unknown_query_language", language) }
        guard JavaScriptEngine.isAvailable else { throw CouchError(501, "not_implemented", JavaScriptEngine.unavailable.message) }
    }

    /// Whether `function` compiles (from what is known when it compiled before, with no
    /// call at all). - Throws: as `call`, for a function that does not compile.
    func compile(_ function: DesignFunction) async throws {
        if isKnownToCompile(function) { return }
        _ = try await call(function) { _, _ in true }
    }

    /// Whether `function` compiled before (so `compile` calls nothing).
    func isKnownToCompile(_ function: DesignFunction) -> Bool {
        pool.withLock { $0.isKnownToCompile(function) }
    }

    /// Releases every kept engine (the node is shutting down, or a test wants none kept).
    func releaseEngines() {
        let released = pool.withLock { $0.removeAll() }
        _ = released
        Self.returnFreedMemory()
    }

    /// Idle engines kept now.
    var idleEngines: Int { pool.withLock { $0.idleCount } }

    // MARK: On the service's threads

    enum CallFailure: Error {
        /// The function that did not compile, and why.
        case compilation(DesignFunction, JavaScriptError)
        case run(JavaScriptError)
    }

    /// `perform`, then, when it released a spent engine (whose last reference ended with
    /// `perform`), the freed memory handed back to the system (item 5).
    private func performAndReturnMemory<T>(_ functions: [DesignFunction],
                                           _ body: (JavaScriptEngine, [Int]) throws(JavaScriptError) -> T)
        -> Result<T, CallFailure> {
        let (result, releasedEngine) = perform(functions, body)
        if releasedEngine { Self.returnFreedMemory() }
        return result
    }

    /// Checks out an engine of the functions' design document (or makes one), compiles
    /// the functions in it that are not yet, runs `body`, and gives the engine back,
    /// unless the call was stopped or left a heap past the limit: then it is dropped
    /// (true), to be released as this function returns.
    private func perform<T>(_ functions: [DesignFunction], _ body: (JavaScriptEngine, [Int]) throws(JavaScriptError) -> T)
        -> (Result<T, CallFailure>, Bool) {
        let code = functions[0].code
        let key = code.key
        // A database deleted meanwhile: its code still runs once, in an engine kept by no one.
        let database = code.database
        let engine: CompiledEngine
        if let database, let idle = pool.withLock({ $0.checkOut(key, database: database) }) {
            engine = idle
        } else {
            do { engine = CompiledEngine(try JavaScriptEngine(limits: limits)) } catch {
                return (.failure(.compilation(functions[0], error)), false)
            }
        }
        var handles: [Int] = []
        for function in functions {
            do { handles.append(try engine.handle(function)) } catch {
                return (.failure(.compilation(function, error)), false)
            }
            if let database { pool.withLock { $0.markCompiles(function, database: database) } }
        }
        let limit = limits.value.memoryBytes
        let residentBefore = JavaScriptEngine.residentBytes()
        let result = Result { () throws(JavaScriptError) in try body(engine.engine, handles) }.mapError(CallFailure.run)
        // Spent: stopped, or the process grew past the limit during the call (what one
        // native call allocates at once, as `new Uint8Array(2e9).fill(1)`, escapes the
        // heap's figures and every check while it runs). Not the heap's own figures
        // here: JavaScriptCore counts its objects for them, a walk of the whole heap.
        let isSpent = engine.engine.wasStopped || JavaScriptEngine.residentBytes() - residentBefore > limit
        if let database, !isSpent {
            let kept = min(engineLimit, max(1, Self.idleMemoryBudget / max(1, limit)))
            let released = pool.withLock { $0.checkIn(engine, key, database: database, limit: kept) }
            _ = released  // released here, outside the lock
        }
        return (result, isSpent)
    }

    static func returnFreedMemory() { JavaScriptEngine.returnFreedMemory() }

    private static func unwrap<T>(_ outcome: Result<T, CallFailure>) throws -> T {
        switch outcome {
        case .success(let value): return value
        case .failure(.compilation(let function, let error)):
            throw CouchError.javaScriptCompilation(error, failure: function.failure)
        case .failure(.run(let error)):
            throw error
        }
    }

    private static func overloaded(_ error: JavaScriptError) -> CouchError {
        CouchError(javaScript: error, in: .map)  // overloaded: 503 whatever the call
    }
}

/// One engine with the functions compiled into it so far, by name. Used by one call
/// at a time: it is checked out of the pool for the call.
final class CompiledEngine: @unchecked Sendable {
    // @unchecked: only the thread that checked it out touches it.
    let engine: JavaScriptEngine
    private var handles: [String: Int] = [:]

    init(_ engine: JavaScriptEngine) { self.engine = engine }

    func handle(_ function: DesignFunction) throws(JavaScriptError) -> Int {
        if let handle = handles[function.name] { return handle }
        let handle: Int
        switch function.scope {
        case .plain: handle = try engine.compile(function.source)
        case .modules(let modules): handle = try engine.compile(function.source, modules: modules)
        case .designDocument: handle = try engine.compile(function.source, designDocument: function.code.document)
        }
        handles[function.name] = handle
        return handle
    }
}
