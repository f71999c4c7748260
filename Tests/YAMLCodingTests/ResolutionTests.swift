import Testing
import YAMLCoding

/// Plain scalars resolve per the YAML 1.2 core schema; everything else is a string.
struct ResolutionTests {
    @Test(arguments: [
        ("~", YAMLValue.null), ("null", .null), ("Null", .null), ("NULL", .null), ("", .null),
        ("true", .bool(true)), ("True", .bool(true)), ("TRUE", .bool(true)),
        ("false", .bool(false)), ("False", .bool(false)), ("FALSE", .bool(false)),
        ("0", .int(0)), ("-19", .int(-19)), ("+12", .int(12)), ("007", .int(7)),
        ("0o14", .int(12)), ("0x1F", .int(31)), ("0xff", .int(255)),
        ("1.5", .double(1.5)), ("-.5", .double(-0.5)), ("1.", .double(1)), ("2e3", .double(2000)),
        ("6.8523015e+5", .double(685230.15)), (".inf", .double(.infinity)),
        ("-.Inf", .double(-.infinity)), ("+.INF", .double(.infinity)),
        // Not core schema: YAML 1.1 booleans, octal, underscores and partial forms stay strings.
        ("yes", .string("yes")), ("off", .string("off")), ("tRue", .string("tRue")),
        ("0b101", .string("0b101")), ("1_000", .string("1_000")), ("0x", .string("0x")),
        ("0o8", .string("0o8")), ("-0x1", .string("-0x1")), (".", .string(".")),
        ("1e", .string("1e")), ("nan", .string("nan")), ("1.2.3", .string("1.2.3")),
        ("hello", .string("hello")),
    ])
    func plainScalarsResolveByTheCoreSchema(_ text: String, _ expected: YAMLValue) throws {
        let node = try plainLoader.load("v: \(text)\n")
        #expect(node["v"]?.value == expected)
    }

    @Test func notANumberResolvesToNaN() throws {
        for text in [".nan", ".NaN", ".NAN"] {
            guard case .double(let value)? = try plainLoader.load(text).scalarValue else {
                Issue.record("\(text) is not a double")
                continue
            }
            #expect(value.isNaN)
        }
    }

    @Test func integersTooLargeForIntBecomeDoubles() throws {
        #expect(try plainLoader.load("123456789012345678901234").value == .double(1.2345678901234568e23))
    }

    @Test func quotedAndBlockScalarsAreAlwaysStrings() throws {
        let root = try plainLoader.load("""
            a: "12"
            b: 'true'
            c: ''
            d: |
              null
            e: x
            """)
        #expect(root.value == ["a": "12", "b": "true", "c": "", "d": "null\n", "e": "x"])
    }

    @Test func coreTagsForceTheType() throws {
        let root = try plainLoader.load("""
            s: !!str 12
            i: !!int "12"
            f: !!float 3
            b: !!bool "false"
            n: !!null ""
            e: ! 12
            local: !custom 12
            """)
        #expect(root.value == ["s": "12", "i": 12, "f": 3.0, "b": false, "n": nil, "e": "12",
                               "local": 12])
        #expect(root["f"]?.value == .double(3))
    }

    @Test func nonScalarKeysBecomeTheirFlowText() throws {
        let root = try plainLoader.load("? [a, b]\n: 1\n")
        #expect(root.value == ["[a, b]": 1])
    }

    @Test func valuesRoundTripThroughNodes() {
        let value: YAMLValue = ["s": "true", "n": nil, "b": false, "i": -3, "d": 2.5,
                                "inf": .double(-.infinity), "list": [1, "x"], "empty": [:]]
        #expect(YAMLNode(value).value == value)
    }
}
