import SetteeJSON
import Testing

/// Examples follow docs.couchdb.org "Selector Syntax" (the movie documents).
@Suite struct SelectorTests {
    static let movie: JSONValue = [
        "_id": "tt0133093", "title": "The Matrix", "year": 1999, "rating": nil,
        "director": "Lana Wachowski",
        "imdb": ["rating": 8.7, "votes": 1_500_000],
        "genre": ["Action", "Sci-Fi"],
        "cast": [["name": "Keanu Reeves", "age": 34], ["name": "Carrie-Anne Moss", "age": 31]],
        "scores": [82, 84, 88],
        "a.b": "dotted",
    ]

    private func matches(_ selector: JSONValue, _ doc: JSONValue = movie) throws -> Bool {
        try Selector(selector).matches(doc)
    }

    private func parse(_ text: String) throws -> JSONValue { try JSONReader.parse(text) }

    @Test func emptySelectorMatchesEverything() throws {
        #expect(try matches([:]))
        #expect(try matches([:], ["x": 1]))
    }

    @Test func implicitEqualityAndImplicitAnd() throws {
        #expect(try matches(["director": "Lana Wachowski"]))
        #expect(try matches(["director": "Lana Wachowski", "year": 1999]))
        #expect(try !matches(["director": "Lana Wachowski", "year": 2000]))
        #expect(try matches(["year": ["$eq": 1999.0]]))  // numbers by value
        #expect(try matches(["rating": nil]))
        #expect(try matches(["genre": ["Action", "Sci-Fi"]]))
        #expect(try !matches(["genre": ["Sci-Fi", "Action"]]))
    }

    @Test func comparisons() throws {
        #expect(try matches(["year": ["$gt": 1990]]))
        #expect(try matches(["year": ["$gte": 1999, "$lte": 1999]]))
        #expect(try !matches(["year": ["$lt": 1999]]))
        #expect(try matches(["year": ["$ne": 2000]]))
        #expect(try matches(["imdb.rating": ["$gte": 8]]))
    }

    @Test func comparisonsFollowCollationAcrossTypes() throws {
        // null < false < true < numbers < strings (ICU: case after accents) < arrays < objects
        let order: [JSONValue] = [nil, false, true, -5, 2.5, 10, "", "a", "A", "é", "É", "f", [], [1], [:], ["k": 1]]
        for (i, lower) in order.enumerated() {
            for higher in order[(i + 1)...] {
                #expect(try matches(["v": ["$lt": higher]], ["v": lower]), "\(lower) < \(higher)")
                #expect(try !matches(["v": ["$gte": higher]], ["v": lower]))
            }
        }
        #expect(JSONCollation.compare(9_007_199_254_740_993, 9_007_199_254_740_992) > 0)
    }

    @Test func nestedFieldsObjectSyntaxDotsAndEscapes() throws {
        #expect(try matches(["imdb": ["rating": 8.7]]))
        #expect(try matches(["imdb.votes": ["$gt": 1_000_000]]))
        #expect(try matches(["genre.1": "Sci-Fi"]))  // array index segment
        #expect(try matches([#"a\.b"#: "dotted"]))
        #expect(try !matches(["a.b": "dotted"]))
        #expect(try !matches(["title.length": ["$exists": false]]))  // through a scalar
    }

    @Test func existsAndType() throws {
        #expect(try matches(["rating": ["$exists": true]]))
        #expect(try matches(["budget": ["$exists": false]]))
        #expect(try !matches(["title": ["$exists": false]]))
        let types: [(String, JSONValue)] = [
            ("null", nil), ("boolean", true), ("number", 1.5), ("string", "s"), ("array", []), ("object", [:]),
        ]
        for (name, value) in types {
            #expect(try matches(["v": ["$type": .string(name)]], ["v": value]))
            #expect(try !matches(["v": ["$type": .string(name == "null" ? "string" : "null")]], ["v": value]))
        }
    }

    @Test func inAndNin() throws {
        #expect(try matches(["year": ["$in": [1999, 2003]]]))
        #expect(try matches(["genre": ["$in": ["Comedy", "Sci-Fi"]]]))  // any element
        #expect(try !matches(["genre": ["$nin": ["Comedy", "Sci-Fi"]]]))
        #expect(try matches(["year": ["$nin": [2003]]]))
    }

    @Test func combinationOperators() throws {
        #expect(try matches(["$and": [["year": 1999], ["director": "Lana Wachowski"]]]))
        #expect(try matches(["year": 1999, "$or": [["director": "George Lucas"], ["director": "Lana Wachowski"]]]))
        #expect(try matches(["year": ["$gte": 1900], "$not": ["year": 1901]]))
        #expect(try !matches(["$nor": [["year": 1999], ["year": 2003]]]))
        #expect(try matches(["$nor": [["year": 1901], ["year": 1905]]]))
        #expect(try matches(["year": ["$not": ["$gt": 2000]]]))
        #expect(try matches(["$not": ["$or": [["year": 1], ["title": "x"]]]]))
    }

    @Test func negationNeverMatchesAMissingFieldExceptExistsFalse() throws {
        #expect(try !matches(["$not": ["budget": 5]]))
        #expect(try !matches(["budget": ["$ne": 5]]))
        #expect(try matches(["$not": ["budget": ["$exists": true]]]))
    }

    @Test func arrayOperators() throws {
        #expect(try matches(["genre": ["$all": ["Sci-Fi", "Action"]]]))
        #expect(try !matches(["genre": ["$all": ["Sci-Fi", "Comedy"]]]))
        #expect(try matches(["genre": ["$all": [["Action", "Sci-Fi"]]]]))
        #expect(try matches(["genre": ["$elemMatch": ["$eq": "Action"]]]))
        #expect(try matches(["scores": ["$elemMatch": ["$gte": 80, "$lt": 85]]]))
        #expect(try matches(["cast": ["$elemMatch": ["name": "Keanu Reeves", "age": ["$gt": 30]]]]))
        #expect(try !matches(["cast": ["$elemMatch": ["name": "Keanu Reeves", "age": ["$lt": 30]]]]))
        #expect(try matches(["scores": ["$allMatch": ["$gt": 80]]]))
        #expect(try !matches(["scores": ["$allMatch": ["$gt": 83]]]))
        #expect(try !matches(["v": ["$allMatch": ["$gt": 0]]], ["v": []]))
        #expect(try matches(["genre": ["$size": 2]]))
        #expect(try !matches(["title": ["$size": 10]]))
        #expect(try matches(["imdb": ["$keyMapMatch": ["$eq": "votes"]]]))
    }

    /// A pattern that backtracks exponentially stops at PCRE2's match limit and does
    /// not match (Erlang's `re` answers `{error, match_limit}`, which CouchDB treats as
    /// no match) instead of running for hours.
    @Test func catastrophicRegexIsBounded() throws {
        let subject: JSONValue = ["s": .string(String(repeating: "a", count: 64) + "!")]
        #expect(try !matches(["s": ["$regex": "(a+)+$"]], subject))
        #expect(try matches(["s": ["$regex": "(a+)+!$"]], subject))
    }

    /// Many `$in` operands are hashed (`ValueSet`): equality stays collation equality.
    @Test func largeInLists() throws {
        let many: [JSONValue] = (0..<1_000).map { .int($0 * 2) } + ["Action", ["k": 1], .number(JSONNumber(text: "9007199254740993"))]
        #expect(try matches(["year": ["$in": .array(many + [1999.0])]]))
        #expect(try !matches(["year": ["$in": .array(many)]]))
        #expect(try matches(["genre": ["$in": .array(many)]]))  // an element of the array
        #expect(try matches(["x": ["$in": .array(many)]], ["x": ["k": 1]]))
        #expect(try !matches(["x": ["$in": .array(many)]], ["x": .number(JSONNumber(text: "9007199254740992"))]))
        #expect(try matches(["x": ["$nin": .array(many)]], ["x": 3]))
    }

    @Test func regexAndBeginsWith() throws {
        #expect(try matches(["title": ["$regex": "^The"]]))
        #expect(try matches(["title": ["$regex": "Mat"]]))  // unanchored, like re:run
        #expect(try matches(["title": ["$regex": "(?i)matrix$"]]))
        #expect(try !matches(["year": ["$regex": "1999"]]))
        #expect(try matches(["title": ["$regex": #"^\w+\s\w+$"#]]))  // PCRE classes, as Erlang's re

        #expect(try matches(["title": ["$beginsWith": "The M"]]))
    }

    @Test func modulo() throws {
        #expect(try matches(["year": ["$mod": [10, 9]]]))
        #expect(try !matches(["year": ["$mod": [2, 0]]]))
        #expect(try matches(["v": ["$mod": [4, -3]]], ["v": -7]))  // sign of the dividend
        #expect(try !matches(["v": ["$mod": [2, 0]]], ["v": 4.5]))  // integers only
    }

    @Test(arguments: [
        (#"{"year": {"$bogus": 1}}"#, "invalid_operator", "Invalid operator: $bogus"),
        (#"{"year": {"$in": 1999}}"#, "bad_arg", "Bad argument for operator $in: 1999"),
        (#"{"year": {"$nin": "x"}}"#, "bad_arg", #"Bad argument for operator $nin: <<120>>"#),
        (#"{"genre": {"$size": 1.5}}"#, "bad_arg", "Bad argument for operator $size: 1.5"),
        (#"{"genre": {"$size": -1}}"#, "bad_arg", "Bad argument for operator $size: -1"),
        (#"{"year": {"$mod": [0, 1]}}"#, "bad_arg", "Bad argument for operator $mod: [0,1]"),
        (#"{"year": {"$mod": [2]}}"#, "bad_arg", "Bad argument for operator $mod: [2]"),
        (#"{"year": {"$exists": 1}}"#, "bad_arg", "Bad argument for operator $exists: 1"),
        (#"{"year": {"$type": 1}}"#, "bad_arg", "Bad argument for operator $type: 1"),
        (#"{"title": {"$regex": "("}}"#, "bad_arg", #"Bad argument for operator $regex: <<40>>"#),
        (#"{"$and": {"a": 1}}"#, "bad_arg", #"Bad argument for operator $and: {[{<<97>>,1}]}"#),
        (#"{"$not": 1}"#, "bad_arg", "Bad argument for operator $not: 1"),
        (#"{"a": {"$elemMatch": []}}"#, "bad_arg", "Bad argument for operator $elemMatch: []"),
        (#"{"$where": "1"}"#, "not_supported", "Unsupported operator: $where"),
        (#"{"$gt": 1}"#, "invalid_selector", "One or more conditions is missing a field name."),
        (#"[1]"#, "invalid_selector_json", "Selector must be a JSON object, not: [1]"),
        (#"{"a\\.b..c": 1}"#, "invalid_field_name", #"Invalid field name: a\.b..c"#),
    ])
    func malformedSelectorsAreRefused(_ text: String, _ error: String, _ reason: String) throws {
        let json = try parse(text)
        #expect(throws: SelectorError(error: error, reason: reason)) { try Selector(json) }
    }
}
