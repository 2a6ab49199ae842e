import Foundation
import SetteeJSON
@testable import SetteeViews
import Testing

/// The allocation guards (`JavaScriptEngine.allocationGuards`, issue #46 item 5): what one
/// native call would allocate past the call's memory limit is refused before it is
/// allocated, by every path design document code could take to the allocator, and
/// ordinary use of the same functions is unchanged. Serialized: each case measures the
/// process's RSS, and 33 engines at once would hold both cooperative threads for seconds,
/// starving the in-process servers of the suites that run beside this one.
@Suite(.serialized) struct AllocationGuardsTests {
    static let limit = 64 << 20

    /// Runs `body` as a map function's body over one document: its emitted value.
    static func run(_ body: String, engine: JavaScriptEngine? = nil) throws(JavaScriptError) -> JSONValue? {
        let engine = try { () throws(JavaScriptError) -> JavaScriptEngine in
            if let engine { return engine }
            return try fresh()
        }()
        let function = try engine.compile("function(doc) { emit(null, (function() { \(body) })()); }")
        let row = try engine.map(function, documents: ["{}"]).first??.first
        return row?.arrayValue?[1]
    }

    static func fresh() throws(JavaScriptError) -> JavaScriptEngine {
        try JavaScriptEngine(limits: JavaScriptLimits(memoryBytes: limit))
    }

    static let attacks: [(String, String)] = [
        ("typed array", "return new Uint8Array(2e9).fill(1).length;"),
        ("typed array of another", "return new Float64Array(new Uint8Array(6e7)).length;"),
        ("typed array of a sparse array", "var a = []; a.length = 1e9; return new Float64Array(a).length;"),
        ("typed array of an array-like", "return new Int32Array({length: 1e9}).length;"),
        ("subclass", "class X extends Uint8Array {}; return new X(2e9).length;"),
        ("constructor property", "return new (new Uint8Array(1).constructor)(2e9).length;"),
        ("prototype's constructor", "return new (Object.getPrototypeOf(new Uint16Array(1)).constructor)(1e9).length;"),
        ("Reflect.construct", "return Reflect.construct(Uint8Array, [2e9]).length;"),
        ("bound constructor", "var B = Uint8Array.bind(null); return new B(2e9).length;"),
        ("%TypedArray%.from", "var T = Object.getPrototypeOf(Uint8Array); return T.from.call(Uint8Array, {length: 2e9}).length;"),
        ("ArrayBuffer", "return new ArrayBuffer(2e9).byteLength;"),
        ("resizable ArrayBuffer", "return new ArrayBuffer(8, {maxByteLength: 2e9}).maxByteLength;"),
        ("ArrayBuffer.transfer", "return new ArrayBuffer(8).transfer(2e9).byteLength;"),
        ("a replaced global", "try { Uint8Array = function() {}; } catch (e) {} return new Uint8Array(2e9).length;"),
        ("a redefined method", "try { Object.defineProperty(String.prototype, 'repeat', {value: function() { return ''; }}); } catch (e) {} return 'xy'.repeat(5e8).length;"),
        ("String.repeat", "return 'xy'.repeat(5e8).charCodeAt(3);"),
        ("String.padStart", "return 'x'.padStart(2e9).length;"),
        ("String.padEnd", "return 'x'.padEnd(2e9, 'ab').length;"),
        ("String.split", "return 'x'.repeat(3e7).split('').length;"),
        ("Array.join of a sparse array", "var a = []; a.length = 3e8; return a.join('ab').length;"),
        ("Array.join of one string many times", "var s = 'x'.repeat(1e7), a = []; for (var i = 0; i < 100; i++) a.push(s); return a.join('').length;"),
        ("Array.fill", "return new Array(3e8).fill(1).length;"),
        ("Array.toSorted", "var a = []; a.length = 3e8; return a.toSorted().length;"),
        ("TypedArray.join", "return new Uint8Array(6e7).join('abcdef').length;"),
        ("a fake buffer", "var f = Object.create(ArrayBuffer.prototype); f.length = 2e9; return new Uint8Array(f).length;"),
        ("an endless iterator", "return new Uint8Array({[Symbol.iterator]: function() { return {next: function() { return {done: false, value: 1}; }}; }}).length;"),
        ("a replaced array iterator", "Array.prototype[Symbol.iterator] = function() { return {next: function() { return {done: false, value: 1}; }}; }; return Uint8Array.from([1]).length;"),
        ("Object.keys of a typed array", "return Object.keys(new Uint8Array(6e7)).length;"),
        ("Reflect.ownKeys of a typed array", "return Reflect.ownKeys(new Uint8Array(6e7)).length;"),
        ("Object.assign of a typed array", "return Object.keys(Object.assign({}, new Uint8Array(6e7))).length;"),
        ("JSON of a typed array", "return JSON.stringify({a: [new Uint8Array(6e7)]}).length;"),
        ("Array.from of a typed array", "return Array.from(new Uint8Array(6e7)).length;"),
        ("caught and ignored", "try { new Uint8Array(2e9); } catch (e) {} return 1;"),
    ]

    /// What one attack did: the error that stopped it (nil if it ran), whether its engine
    /// was marked stopped, and how much the process grew meanwhile.
    struct Outcome: Sendable {
        var error: String?
        var ranTo: String?
        var engineStopped = false
        var grew = 0
    }

    /// Runs `attack` on a thread of its own: an attack may run for seconds inside one native
    /// call, and on Swift's cooperative threads it would starve the in-process servers of
    /// the suites running beside this one.
    static func attempt(_ attack: String) async -> Outcome {
        await withCheckedContinuation { (done: CheckedContinuation<Outcome, Never>) in
            Thread {
                var outcome = Outcome()
                let before = JavaScriptEngine.residentBytes()
                do throws(JavaScriptError) {
                    let engine = try JavaScriptEngine(limits: JavaScriptLimits(memoryBytes: Self.limit))
                    do throws(JavaScriptError) {
                        outcome.ranTo = String(describing: try Self.run(attack, engine: engine))
                    } catch {
                        outcome.error = error.message
                    }
                    outcome.engineStopped = engine.wasStopped
                } catch {
                    outcome.error = "no engine: \(error.message)"
                }
                outcome.grew = JavaScriptEngine.residentBytes() - before
                done.resume(returning: outcome)
            }.start()
        }
    }

    @Test(arguments: attacks) func anAttackIsRefusedBeforeItAllocates(_ attack: (String, String)) async {
        let outcome = await Self.attempt(attack.1)
        if let ranTo = outcome.ranTo { Issue.record("\(attack.0) ran: \(ranTo)") }
        // An endless iterator is collected in JavaScript, where the watch stops it by
        // memory or, on a loaded machine, by time first: either way nothing is allocated at once.
        let message = outcome.error ?? ""
        let isEndless = attack.0.contains("iterator")
        #expect(message.contains("exceeded its memory limit") || (isEndless && message.contains("timed out")),
                "\(attack.0): \(message)")
        #expect(outcome.engineStopped, "\(attack.0): the engine is kept")
        // Other tests run beside this one: the bound is loose, but far below a gigabyte.
        #expect(outcome.grew < 512 << 20, "\(attack.0) grew the process")
    }

    /// A Proxy's length is asked once: what it answers then is what is allocated.
    @Test func aLyingLengthIsReadOnce() throws {
        let body = "var n = 0; var p = new Proxy([7], {get: function(t, k) { if (k === 'length') return n++ ? 2e9 : 1; return t[k]; }});"
            + " return [new Uint8Array(p).length, n];"
        #expect(try Self.run(body) == [1, 1])
    }

    @Test func webAssemblyIsGone() throws {
        #expect(try Self.run("return typeof WebAssembly;") == "undefined")
    }

    @Test func ordinaryUseIsUnchanged() throws {
        let checks: [(String, JSONValue)] = [
            ("var t = new Uint8Array([1, 2, 3]); return t.join();", "1,2,3"),
            ("return Float64Array.from([1.5, 2])[0];", 1.5),
            ("class Y extends Uint8Array {}; var y = new Y(3); return [y instanceof Uint8Array, y instanceof Y, y.length];", [true, true, 3]),
            ("return new Uint8Array(1).constructor === Uint8Array && Uint8Array.prototype.constructor === Uint8Array;", true),
            ("return Object.getPrototypeOf(Uint8Array).name;", "TypedArray"),
            ("return new Uint8Array(new ArrayBuffer(8), 2, 4).length;", 4),
            ("return Array.from(new Uint8Array(new Set([4, 5])));", [4, 5]),
            ("return Array.from(Uint16Array.of(6, 7).subarray(1));", [7]),
            ("return new DataView(new ArrayBuffer(4)).byteLength;", 4),
            ("var b = new ArrayBuffer(2, {maxByteLength: 8}); b.resize(6); return b.byteLength;", 6),
            ("return ['ab'.repeat(3), 'x'.padEnd(3, 'y'), 'x'.padStart(3), 'a'.concat('b', 1)];", ["ababab", "xyy", "  x", "ab1"]),
            ("return ['A,B'.split(','), 'abc'.split(''), 'a1b2'.split(/\\d/, 1)];", [["A", "B"], ["a", "b", "c"], ["a"]]),
            ("return ['abc'.toUpperCase(), 'ÉA'.toLowerCase(), 'e\\u0301'.normalize().length];", ["ABC", "éa", 1]),
            ("return [[1, [2, 3], null, 'a'].join('-'), String([1, 2]), [1, 2].toLocaleString()];", ["1-2,3--a", "1,2", "1,2"]),
            ("var a = [1]; a.push(a); return a.join();", "1,"),
            ("return [[3, 1, 2].toSorted(), [1, 2, 3].toReversed(), [1, 2, 3].with(1, 9), [1, 2, 3].toSpliced(1, 1, 'x', 'y')];",
             [[1, 2, 3], [3, 2, 1], [1, 9, 3], [1, "x", "y", 3]]),
            ("return [new Array(3).fill(7), [1, 2, 3, 4].fill(0, 1, -1)];", [[7, 7, 7], [1, 0, 0, 4]]),
            ("return [Object.keys(new Uint8Array(2)), JSON.stringify(new Uint8Array([5])), Object.entries({a: 1}), Object.assign({}, {b: 2}).b];",
             [["0", "1"], #"{"0":5}"#, [["a", 1]], 2]),
            ("var s = ''; for (var i = 0; i < 1000; i++) s += 'abc'; return s.split('b').length;", 1001),
            ("return new Uint8Array(1 << 20).fill(1).reduce(function(a, b) { return a + b; }, 0);", 1_048_576),
        ]
        for (body, expected) in checks {
            #expect(try Self.run(body) == expected, "\(body)")
        }
    }

    @Test func theLimitFollowsTheSetting() throws {
        let setting = JavaScriptLimitsSetting(JavaScriptLimits(memoryBytes: 1 << 20))
        let engine = try JavaScriptEngine(limits: setting)
        #expect(throws: JavaScriptError.self) { try Self.run("return new Uint8Array(2 << 20).length;", engine: engine) }
        setting.value.memoryBytes = 8 << 20
        let fresh = try JavaScriptEngine(limits: setting)
        #expect(try Self.run("return new Uint8Array(2 << 20).length;", engine: fresh) == 2_097_152)
    }
}
