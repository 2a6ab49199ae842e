@testable import SetteeServer
import SetteeStore
import Testing

/// `[chttpd_auth] password_regexp` as CouchDB 3.4.3's `couch_users_db:validate_password/1`
/// reads and applies it.
@Suite struct PasswordRequirementsTests {
    @Test func unsetOrEmptyListAcceptsAnyPassword() throws {
        let requirements = PasswordRequirements()
        try requirements.check("")
        for value in [nil, "", " [] "] as [String?] {
            requirements.set(value)
            try requirements.check("x")
        }
    }

    @Test func eachPatternMustMatchWithItsReason() throws {
        let requirements = PasswordRequirements()
        requirements.set(#"[{".{10,}", "Min length 10."}, {"[A-Z]+"}, "[0-9]", {"[a-z]", ""}]"#)
        try requirements.check("Abcdefghij1")
        let base = PasswordRequirements.requirementError
        #expect(throws: WriteRejection.refused(status: 400, error: "bad_request", reason: base + " Min length 10.")) {
            try requirements.check("Abc1")
        }
        #expect(throws: WriteRejection.refused(status: 400, error: "bad_request", reason: base)) {
            try requirements.check("abcdefghij1")
        }
        #expect(throws: WriteRejection.refused(status: 400, error: "bad_request", reason: base)) {
            try requirements.check("ABCDEFGHIJ1")
        }
    }

    @Test(arguments: ["not a list", "[1]", #"["("]"#, #"[{"a","b","c"}]"#, #"["a""#])
    func anUnreadableSettingRefusesEveryPassword(value: String) {
        let requirements = PasswordRequirements()
        requirements.set(value)
        #expect(throws: WriteRejection.forbidden(PasswordRequirements.serverError)) { try requirements.check("x") }
    }
}
