import SetteeConfig
import Testing

@Suite struct INIFileTests {
    @Test func parsesSectionsKeysAndComments() throws {
        let file = try INIFile(text: """
            ; a comment
            [chttpd]
            port = 5985   ; trailing comment
            bind_address=0.0.0.0

            # also a comment
            [admins]
            admin = pa;ss
            [chttpd]
            port = 6000
            """, source: "t.ini")
        #expect(file.value("port", in: "chttpd")?.value == "6000")
        #expect(file.value("port", in: "chttpd")?.line == 10)
        #expect(file.value("bind_address", in: "chttpd")?.value == "0.0.0.0")
        #expect(file.value("admin", in: "admins")?.value == "pa;ss")
        #expect(file.settings(in: "chttpd").map(\.key) == ["port", "bind_address"])
        #expect(file.sectionNames == ["chttpd", "admins"])
    }

    @Test(arguments: [
        ("[chttpd]\nport = 1\njust words\n", 3),
        ("port = 1\n", 1),
        ("[chttpd\n", 1),
        ("[]\n", 1),
        ("[a]\n = value\n", 2),
    ])
    func rejectsMalformedLinesWithLocation(text: String, line: Int) {
        #expect(throws: ConfigError.self) { try INIFile(text: text, source: "bad.ini") }
        do {
            _ = try INIFile(text: text, source: "bad.ini")
        } catch {
            guard case .malformedLine(let file, let reported, _) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(file == "bad.ini")
            #expect(reported == line)
            #expect(error.description.hasPrefix("bad.ini:\(line): "))
        }
    }

    @Test func rewritesOneValueAndKeepsTheRest() throws {
        var file = try INIFile(text: "; keep me\n[admins]\nadmin = plain\n\n[log]\nlevel = info\n", source: "t")
        let entry = try #require(file.value("admin", in: "admins"))
        file.replaceValue(of: entry, with: "-pbkdf2:sha256-x,y,1")
        #expect(file.text == "; keep me\n[admins]\nadmin = -pbkdf2:sha256-x,y,1\n\n[log]\nlevel = info\n")
        let reparsed = try INIFile(text: file.text, source: "t")
        #expect(reparsed.value("admin", in: "admins")?.value == "-pbkdf2:sha256-x,y,1")
    }

    @Test func appendsToExistingOrNewSection() throws {
        var file = try INIFile(text: "[couchdb]\ndatabase_dir = d\n[log]\nlevel = info\n", source: "t")
        file.append("uuid", "abc", in: "couchdb")
        file.append("bob", "pw", in: "admins")
        let reparsed = try INIFile(text: file.text, source: "t")
        #expect(reparsed.value("uuid", in: "couchdb")?.line == 3)
        #expect(reparsed.value("level", in: "log")?.value == "info")
        #expect(reparsed.value("bob", in: "admins")?.value == "pw")
        #expect(file.value("level", in: "log")?.line == 5)
    }
}
