internal import CICU
internal import Synchronization

/*
 Strings in CouchDB's view collation: ICU's root collator at its default strength,
 as couch_ejson_compare.c opens it (`ucol_open("")`, no attributes set) and compares
 with `ucol_strcollIter` — "a" < "A" < "aa" < "b" < "B" (docs.couchdb.org "Views
 Collation"). Index keys hold ICU sort keys, whose byte order is that comparison's
 order (ICU User Guide, "Collation › Sort Keys"), so SQLite's memcmp b-trees sort
 view and Mango keys as CouchDB does.

 ICU documents a collator's const functions as safe to call from several threads;
 collators are still kept in a small pool, one per caller at a time, as CouchDB
 keeps one per scheduler, so no call ever depends on that.
*/

/// ICU's root collation of strings, CouchDB's default collation.
public enum UnicodeCollator {
    /// An open ICU collator, used by one caller at a time (hence `@unchecked`).
    private struct Collator: @unchecked Sendable {
        let pointer: UnsafeMutableRawPointer
    }

    /// Collators not in use; one is opened when none is free.
    private static let idle = Mutex<[Collator]>([])

    /// Compares `a` and `b`: -1, 0 or 1, as `ucol_strcollUTF8` orders them.
    public static func compare(_ a: String, _ b: String) -> Int {
        var a = a
        var b = b
        return withCollator { collator in
            a.withUTF8 { x in
                b.withUTF8 { y in
                    let result = x.withMemoryRebound(to: CChar.self) { p in
                        y.withMemoryRebound(to: CChar.self) { q in
                            settee_collator_compare_utf8(collator, p.baseAddress, Int32(p.count), q.baseAddress,
                                                         Int32(q.count))
                        }
                    }
                    return Int(result)
                }
            }
        }
    }

    /// Appends `string`'s ICU sort key, ending with its 0x00 (the only zero byte in it).
    public static func appendSortKey(_ string: String, to out: inout [UInt8]) {
        let text = Array(string.utf16)
        var capacity = text.count * 4 + 16
        while true {
            let start = out.count
            out.append(contentsOf: repeatElement(0, count: capacity))
            let length = withCollator { collator in
                text.withUnsafeBufferPointer { source in
                    out.withUnsafeMutableBufferPointer { buffer in
                        Int(settee_collator_sort_key(collator, source.baseAddress, Int32(source.count),
                                                     buffer.baseAddress! + start, Int32(capacity)))
                    }
                }
            }
            if length > 0, length <= capacity {
                out.removeLast(capacity - length)
                return
            }
            out.removeLast(capacity)
            // 0: ICU could not make a key (it has none for no text): an empty key then.
            guard length > capacity else {
                out.append(0)
                return
            }
            capacity = length
        }
    }

    /// The collator's version as CouchDB shows it (`collator_versions`, `_node/_local/_versions`):
    /// ICU's four numbers, trailing zeros dropped, joined by dots (couch_util:version_to_binary).
    public static let version: String = dotted { settee_collator_version($0, $1) }

    /// The Unicode Collation Algorithm version the collator implements.
    public static let algorithmVersion: String = dotted { settee_collator_uca_version($0, $1) }

    /// ICU's own version.
    public static let libraryVersion: String = {
        var numbers: [UInt8] = [0, 0, 0, 0]
        numbers.withUnsafeMutableBufferPointer { settee_icu_version($0.baseAddress) }
        return format(numbers)
    }()

    private static func dotted(_ read: (UnsafeMutableRawPointer, UnsafeMutablePointer<UInt8>) -> Void) -> String {
        var numbers: [UInt8] = [0, 0, 0, 0]
        withCollator { collator in numbers.withUnsafeMutableBufferPointer { read(collator, $0.baseAddress!) } }
        return format(numbers)
    }

    private static func format(_ numbers: [UInt8]) -> String {
        var kept = numbers
        while kept.last == 0 { kept.removeLast() }
        return kept.map(String.init).joined(separator: ".")
    }

    private static func withCollator<Result>(_ body: (UnsafeMutableRawPointer) -> Result) -> Result {
        let collator = idle.withLock { $0.popLast() } ?? Collator(pointer: open())
        defer { idle.withLock { $0.append(collator) } }
        return body(collator.pointer)
    }

    private static func open() -> UnsafeMutableRawPointer {
        var status: Int32 = 0
        guard let collator = settee_collator_open(&status) else {
            // The root collator is built into libicudata: without it ICU itself is broken.
            preconditionFailure("ICU could not open its root collator (UErrorCode \(status))")
        }
        return collator
    }
}
