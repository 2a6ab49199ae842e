import Foundation
import Glibc
import SetteeJSON
import SetteeTestSupport
import Testing

/// `settee check` compares every view and Mango index with a rebuild (issue #47, item 4):
/// a key-index row changed inside the stopped server's file is reported by index, `--repair`
/// rebuilds that index, and the server then answers the view as the documents say. Without
/// JavaScriptCore, views are said to be skipped and Mango indexes are still compared.
@Suite(.serialized) struct IndexCheckTests {
    static let designDocument = #"{"views":{"by_n":{"map":"function(doc) { if (doc.n !== undefined) emit(doc.n, doc.n * 2); }"}}}"#

    /// A stopped server's data directory with 40 documents, a view and a Mango index, both built.
    func builtDirectory() throws -> TempDirectory {
        let dir = try TempDirectory(prefix: "index-check")
        let settee = try SetteeProcess.start(dataDirectory: dir.path)
        #expect(try settee.adminRequest("PUT", "/db").status == 201)
        let docs = (0..<40).map { #"{"_id":"d\#($0)","n":\#($0)}"# }.joined(separator: ",")
        #expect(try settee.adminRequest("POST", "/db/_bulk_docs", json: #"{"docs":[\#(docs)]}"#).status == 201)
        #expect(try settee.adminRequest("PUT", "/db/_design/v", json: Self.designDocument).status == 201)
        #expect(try settee.adminRequest("GET", "/db/_design/v/_view/by_n?limit=1").status == 200)
        let index = #"{"index":{"fields":["n"]},"ddoc":"m","name":"by-n"}"#
        #expect(try settee.adminRequest("POST", "/db/_index", json: index).status == 200)
        let find = #"{"selector":{"n":{"$gt":1}},"use_index":"m","limit":1}"#
        #expect(try settee.adminRequest("POST", "/db/_find", json: find).status == 200)
        settee.kill(SIGTERM)
        _ = try settee.waitForExit(timeout: 30)
        return dir
    }

    /// Runs SQL on the stopped server's database file with the sqlite3 shell.
    func sqlite(_ dir: TempDirectory, _ sql: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [dir.appending("db.couch"), sql]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: output, as: UTF8.self)
    }

    /// The key-index table of the view (17 hex digits) or of the Mango index (16).
    func table(_ dir: TempDirectory, view: Bool) throws -> String {
        let names = try sqlite(dir, "SELECT name FROM sqlite_master WHERE type='table' AND name LIKE 'key_index_%'")
            .split(separator: "\n").map(String.init).filter { $0.hasPrefix("key_index_") }
        return try #require(names.first { ($0.count - "key_index_".count == 17) == view }, "\(names)")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3")))
    func damagedViewAndMangoRowsAreFoundAndRepaired() throws {
        let dir = try builtDirectory()
        #expect(try check(["db", "--data-dir", dir.path]) == (0, "db: ok\n"))
        let view = try table(dir, view: true), mango = try table(dir, view: false)
        // One view row's value, and one Mango row gone.
        _ = try sqlite(dir, """
            UPDATE \(view) SET value = CAST('[7,99]' AS BLOB) WHERE doc_id = (SELECT doc_id FROM docs WHERE docid = 'd7');
            DELETE FROM \(mango) WHERE doc_id = (SELECT doc_id FROM docs WHERE docid = 'd12');
            """)
        let found = try check(["db", "--data-dir", dir.path])
        #expect(found.status == 1, "\(found.output)")
        #expect(found.output.contains("db: problem: index _design/v/_view/by_n differs from a rebuild at update seq 41: 1 of 41 documents' entries (d7)"), "\(found.output)")
        #expect(found.output.contains("db: problem: index _design/m/by-n differs from a rebuild"), "\(found.output)")
        #expect(found.output.contains("(d12)"), "\(found.output)")

        let repaired = try check(["db", "--repair", "--data-dir", dir.path])
        #expect(repaired.status == 0 && repaired.output.contains("db: repaired: index _design/v/_view/by_n rebuilt"),
                "\(repaired.output)")
        #expect(try check(["db", "--data-dir", dir.path]) == (0, "db: ok\n"))

        let settee = try SetteeProcess.start(dataDirectory: dir.path)
        defer { settee.kill(SIGKILL) }
        let row = try settee.adminRequest("GET", "/db/_design/v/_view/by_n?key=7")
        #expect(row.json?["rows"]?.arrayValue?.first?["value"]?.intValue == 14, "\(row.text)")
        let find = try settee.adminRequest("POST", "/db/_find", json: #"{"selector":{"n":12},"use_index":"m"}"#)
        #expect(find.json?["docs"]?.arrayValue?.count == 1, "\(find.text)")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3")))
    func withoutJavaScriptCoreViewsAreSkippedAndMangoIsChecked() throws {
        let dir = try builtDirectory()
        let mango = try table(dir, view: false)
        _ = try sqlite(dir, "DELETE FROM \(mango) WHERE doc_id = (SELECT doc_id FROM docs WHERE docid = 'd3');")
        let found = try check(["db", "--data-dir", dir.path],
                              environment: ["SETTEE_JAVASCRIPT_LIBRARY": dir.appending("missing.so")])
        #expect(found.status == 1, "\(found.output)")
        #expect(found.output.contains("db: not checked: 1 views not compared: Design document functions need JavaScriptCore"),
                "\(found.output)")
        #expect(found.output.contains("db: problem: index _design/m/by-n differs from a rebuild"), "\(found.output)")
    }

    /// A repair whose rebuild fails (the database's WAL refuses writes: the EIO shim of
    /// `FailingDiskTests`) leaves the index broken, and the command says so and exits 1.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3")
                   && FileManager.default.isExecutableFile(atPath: "/usr/bin/cc")))
    func aFailedRebuildExitsNonZero() throws {
        let dir = try builtDirectory()
        let shim = try #require(try FailingDiskTests.buildShim(into: dir), "the shim did not build")
        let mango = try table(dir, view: false)
        _ = try sqlite(dir, "DELETE FROM \(mango) WHERE doc_id = (SELECT doc_id FROM docs WHERE docid = 'd5');")
        let trigger = dir.appending("disk-fails")
        #expect(FileManager.default.createFile(atPath: trigger, contents: nil))
        let failed = try check(["db", "--repair", "--data-dir", dir.path], environment: [
            "LD_PRELOAD": shim, "SETTEE_EIO_TRIGGER": trigger, "SETTEE_EIO_MATCH": "db.couch-wal"])
        #expect(failed.status == 1, "\(failed.output)")
        #expect(failed.output.contains("db: not repaired: index _design/m/by-n: the rebuild failed"), "\(failed.output)")
        // On a sound disk the same repair succeeds.
        try FileManager.default.removeItem(atPath: trigger)
        let repaired = try check(["db", "--repair", "--data-dir", dir.path])
        #expect(repaired.status == 0 && repaired.output.contains("db: repaired: index _design/m/by-n rebuilt"), "\(repaired.output)")
    }

    /// A database the check can read but the server could not open (a file a newer Settee
    /// wrote) is a problem: the check says why and exits 1, with or without --repair. It
    /// said "ok" and exited 0 before, with the indexes merely "not checked".
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3")))
    func aDatabaseThatCannotBeOpenedFailsTheCheck() throws {
        let dir = try builtDirectory()
        _ = try sqlite(dir, "PRAGMA user_version = 999")
        for arguments in [["db"], ["db", "--repair"]] {
            let found = try check(arguments + ["--data-dir", dir.path])
            #expect(found.status == 1, "\(found.output)")
            #expect(found.output.contains("db: problem: cannot open the database: The database file was written by a newer version of Settee."),
                    "\(found.output)")
            #expect(!found.output.contains("db: ok"), "\(found.output)")
        }
    }

    /// Runs `settee check ARGUMENTS`: its exit status and its standard output.
    func check(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
        try SetteeCommand.run(["check"] + arguments, environment: environment)
    }
}
