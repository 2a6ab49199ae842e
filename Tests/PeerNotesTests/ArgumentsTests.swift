@testable import peernotes
import Testing

@Suite struct ArgumentsTests {
    @Test func flagsAndTheSecretFromTheEnvironment() throws {
        let arguments = try Arguments.parse(["--data", "/tmp/n", "--port", "7000", "--tls", "--name", "Desk"],
                                            environment: ["PEERNOTES_SECRET": "me:pass:word"])
        #expect(arguments.dataDirectory == "/tmp/n" && arguments.port == 7000 && arguments.usesTLS)
        #expect(arguments.name == "Desk" && arguments.address == "0.0.0.0")
        #expect(arguments.admin == ("me", "pass:word"))
    }

    @Test(arguments: [
        (["--port", "70000"], "me:pw"), (["--port"], "me:pw"), (["--what", "x"], "me:pw"),
        ([], "no-colon"), ([], ":pw"), ([], "me:"),
    ])
    func refuses(_ flags: [String], _ secret: String) {
        #expect(throws: CommandError.self) { try Arguments.parse(flags, environment: ["PEERNOTES_SECRET": secret]) }
    }

    @Test func aSecretIsRequired() {
        #expect(throws: CommandError.self) { try Arguments.parse([], environment: [:]) }
    }
}
