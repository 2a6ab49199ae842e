import Foundation
import Settee
import Testing

/// `ViewKey`, any JSON value: literals, Swift values encoded to it, and decoding.
@Suite struct ViewKeyTests {
    struct Day: Codable, Sendable { var year: Int; var label: String }

    @Test func literalsAndEncodedValuesAreTheSameJSON() throws {
        let literal: ViewKey = ["2026", 1, 2.5, true, nil, ["nested": [:]]]
        #expect(literal == .array([.string("2026"), .int(1), .double(2.5), .bool(true), .null,
                                   .object(["nested": .object([:])])]))
        #expect(try ViewKey(encoding: Day(year: 2026, label: "x")) == ["label": "x", "year": 2026])
        #expect(try ViewKey(encoding: [3, 4]) == [3, 4])
        #expect(throws: SetteeError.self) { try ViewKey(encoding: Double.nan) }
    }

    @Test func decodesEveryKindOfJSONValue() throws {
        let text = #"[null, true, 7, -1.5, "s", [1], {"a": {"b": false}}]"#
        let decoded = try JSONDecoder().decode(ViewKey.self, from: Data(text.utf8))
        #expect(decoded == [nil, true, 7, -1.5, "s", [1], ["a": ["b": false]]])
        let encoded = try JSONEncoder().encode(decoded)
        #expect(try JSONDecoder().decode(ViewKey.self, from: encoded) == decoded)
    }
}
