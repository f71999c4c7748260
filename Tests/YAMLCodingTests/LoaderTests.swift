import Testing
import YAMLCoding

struct LoaderTests {
    @Test func scalarsKeepTheirStyleTagAndOneBasedMark() throws {
        let root = try plainLoader.load("""
            plain: text
            single: 'it''s'
            double: "a\\tb"
            literal: |
              line 1
              line 2
            folded: >
              one
              two
            tagged: !!str 12
            """)
        #expect(root["plain"]?.scalar == .init("text", style: .plain))
        #expect(root["plain"]?.mark == YAMLMark(line: 1, column: 8))
        #expect(root["single"]?.scalar == .init("it's", style: .singleQuoted))
        #expect(root["double"]?.scalar == .init("a\tb", style: .doubleQuoted))
        #expect(root["literal"]?.scalar == .init("line 1\nline 2\n", style: .literal))
        #expect(root["folded"]?.scalar == .init("one two\n", style: .folded))
        #expect(root["tagged"]?.tag == "tag:yaml.org,2002:str")
        #expect(root["tagged"]?.value == "12")
        #expect(root.mark == YAMLMark(line: 1, column: 1))
    }

    @Test func columnsCountCharactersNotBytes() throws {
        let root = try plainLoader.load("héllo: wörld\nnext: 1\n")
        #expect(root["héllo"]?.mark == YAMLMark(line: 1, column: 8))
    }

    @Test func mappingsKeepSourceOrder() throws {
        let root = try plainLoader.load("b: 1\na: 2\nc: 3\n")
        #expect(root.value == ["b": 1, "a": 2, "c": 3])
        #expect(root.mapping?.map(\.key.value) == ["b", "a", "c"])
    }

    @Test func aliasesExpandToTheAnchoredNode() throws {
        let root = try plainLoader.load("""
            base: &base {x: 1, y: [a, b]}
            copy: *base
            name: &n hello
            again: *n
            """)
        #expect(root["copy"]?.value == ["x": 1, "y": ["a", "b"]])
        #expect(root["again"]?.value == "hello")
        // The copy points at where the anchored node is written.
        #expect(root["copy"]?.mark == root["base"]?.mark)
    }

    @Test func mergeKeysMergeOneOrSeveralMappingsWithLocalKeysWinning() throws {
        let root = try plainLoader.load("""
            defaults: &defaults {timeout: 5, retries: 3}
            extra: &extra {retries: 9, verbose: true}
            one:
              <<: *defaults
              timeout: 10
            many:
              name: m
              <<: [*extra, *defaults]
            """)
        // Merged pairs take the place of the `<<` entry.
        #expect(root["one"]?.value == ["retries": 3, "timeout": 10])
        #expect(root["many"]?.value == ["name": "m", "retries": 9, "verbose": true, "timeout": 5])
    }

    @Test func aMergeKeyOfAScalarIsAnError() {
        #expect(errorLines { _ = try plainLoader.load("a:\n  <<: 5\n", file: "m.yaml") } == [
            "m.yaml:2:7: '<<' merges a mapping or a list of mappings (usually an alias like *defaults)",
        ])
    }

    @Test func mergeKeysCanBeTurnedOff() throws {
        let root = try YAMLLoader(interpolation: .disabled, mergeKeys: false)
            .load("a: &a {x: 1}\nb: {<<: *a}\n")
        #expect(root["b"]?.value == ["<<": ["x": 1]])
    }

    @Test func anAliasBombStopsAtTheNodeLimitWithAPosition() {
        var text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1...9 {
            let items = Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ")
            text += "a\(level): &a\(level) [\(items)]\n"
        }
        let errors = yamlErrors { _ = try plainLoader.load(text, file: "bomb.yaml") }
        #expect(errors.map(\.code) == [.sizeLimit])
        #expect(errors.first?.description.hasPrefix("bomb.yaml:5:") == true)
        #expect(errors.first?.message.contains("alias bomb") == true)
    }

    @Test func nestingDeeperThanTheLimitIsAnErrorNotACrash() {
        let deep = String(repeating: "[", count: 100_000)
        let errors = yamlErrors { _ = try plainLoader.load(deep, file: "deep.yaml") }
        #expect(errors.map(\.description) == ["deep.yaml:1:101: the document nests deeper than 100 levels"])
    }

    @Test func aliasesCannotNestBeyondTheDepthLimit() {
        var text = "l0: &l0 [x]\n"
        for level in 1...30 {
            text += "l\(level): &l\(level) [[[[*l\(level - 1)]]]]\n"
        }
        let errors = yamlErrors { _ = try plainLoader.load(text) }
        #expect(errors.map(\.code) == [.depthLimit])
    }

    @Test func undefinedAndRecursiveAliasesAreErrors() {
        #expect(errorLines { _ = try plainLoader.load("a: *nope\n", file: "f.yaml") } == [
            "f.yaml:1:4: alias '*nope' has no anchor '&nope' before it in this document",
        ])
        #expect(errorLines { _ = try plainLoader.load("a: &me [1, *me]\n", file: "f.yaml") } == [
            "f.yaml:1:12: alias '*me' refers to a node that contains it; recursive aliases are not supported",
        ])
    }

    @Test func duplicateKeysAreErrorsAtTheSecondKey() {
        #expect(errorLines { _ = try plainLoader.load("a: 1\nb: 2\na: 3\n", file: "f.yaml") } == [
            "f.yaml:3:1: duplicate key 'a' (first defined at 1:1)",
        ])
    }

    @Test func explicitlyTaggedScalarsMustFitTheirTag() {
        #expect(errorLines { _ = try plainLoader.load("a: !!int ten\nb: !!bool yes\n", file: "f.yaml") } == [
            "f.yaml:1:4: 'ten' is not a valid !!int value",
            "f.yaml:2:4: 'yes' is not a valid !!bool value",
        ])
    }

    @Test func loadRejectsASecondDocumentAtItsStart() {
        #expect(errorLines { _ = try plainLoader.load("a: 1\n---\nb: 2\n", file: "c.yaml") } == [
            "c.yaml:2:1: expected a single YAML document, but another one starts here "
                + "(remove the '---' or split the file)",
        ])
    }

    @Test func loadAllReturnsEveryDocumentWithAnchorsScopedPerDocument() throws {
        let documents = try plainLoader.loadAll("--- &a 1\n--- 2\n...\n--- [x]\n")
        #expect(documents.map(\.value) == [1, 2, ["x"]])
        #expect(errorLines { _ = try plainLoader.loadAll("--- &a 1\n--- *a\n", file: "s.yaml") } == [
            "s.yaml:2:5: alias '*a' has no anchor '&a' before it in this document",
        ])
    }

    @Test func anEmptyStreamIsNoDocumentsOrOneEmptyValue() throws {
        #expect(try plainLoader.loadAll("").isEmpty)
        #expect(try plainLoader.loadAll("# only a comment\n").isEmpty)
        let root = try plainLoader.load("")
        #expect(root.isNull)
        #expect(root.mark == YAMLMark(line: 1, column: 1))
    }

    @Test(arguments: [
        ("a:\n  b: 1\n c: 2\n", "bad.yaml:3:2: did not find expected key (while parsing a block mapping at 1:1)"),
        ("a:\n\tb: 1\n", "bad.yaml:2:1: found character that cannot start any token "
            + "(while scanning for the next token at 2:1); tabs cannot indent YAML, use spaces"),
        ("a: \"open\n", "bad.yaml:2:1: found unexpected end of stream (while scanning a quoted scalar at 1:4)"),
        ("a: b: c\n", "bad.yaml:1:5: mapping values are not allowed in this context"),
        ("- a\nb: c\n", "bad.yaml:2:1: did not find expected '-' indicator (while parsing a block collection at 1:1)"),
        ("k: [1, 2\n", "bad.yaml:2:1: did not find expected ',' or ']' (while parsing a flow sequence at 1:4)"),
        ("a: \u{01}\n", "bad.yaml:1:4: control characters are not allowed (byte 0x1)"),
    ])
    func invalidYAMLIsASyntaxErrorWithItsPosition(_ text: String, _ expected: String) {
        let errors = yamlErrors { _ = try plainLoader.load(text, file: "bad.yaml") }
        #expect(errors.map(\.description) == [expected])
        #expect(errors.map(\.code) == [.syntax])
    }
}
