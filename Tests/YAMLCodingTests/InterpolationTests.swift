import Testing
import YAMLCoding

struct InterpolationTests {
    struct Server: Decodable, Equatable {
        var host: String
        var port: Int
        var password: String?
    }

    let environment: [String: String] = ["HOST": "chat.example", "PORT": "9000", "EMPTY": ""]

    func load(_ text: String) throws -> YAMLValue {
        try YAMLLoader(interpolation: .environment(environment)).load(text, file: "config.yaml").value
    }

    @Test func setVariablesAreSubstitutedInsideText() throws {
        #expect(try load("url: https://${HOST}:${PORT}/api\n") == ["url": "https://chat.example:9000/api"])
    }

    @Test func defaultsApplyWhenUnsetOrEmpty() throws {
        #expect(try load("a: ${MISSING:-fallback}\nb: ${EMPTY:-fallback}\nc: ${HOST:-fallback}\n")
                == ["a": "fallback", "b": "fallback", "c": "chat.example"])
    }

    @Test func anEmptyDefaultGivesAnEmptyValue() throws {
        #expect(try load("plain: ${MISSING:-}\nquoted: \"${MISSING:-}\"\n") == ["plain": nil, "quoted": ""])
    }

    @Test func substitutionHappensBeforeTypeResolution() throws {
        let server = try YAMLDecoder(interpolation: .environment(environment))
            .decode(Server.self, from: "host: ${HOST}\nport: ${PORT:-8080}\n")
        #expect(server == Server(host: "chat.example", port: 9000))
        let defaulted = try YAMLDecoder(interpolation: .environment([:]))
            .decode(Server.self, from: "host: h\nport: ${PORT:-8080}\n")
        #expect(defaulted.port == 8080)
        // Quoting still makes a string.
        #expect(try load("port: \"${PORT}\"\n") == ["port": "9000"])
    }

    @Test func aMissingVariableIsAnErrorAtTheScalar() {
        #expect(errorLines {
            _ = try YAMLDecoder(interpolation: .environment(environment)).decode(
                Server.self, from: "host: h\nport: 1\npassword: ${HELPDESK_PASSWORD}\n", file: "config.yaml")
        } == [
            "config.yaml:3:11: environment variable 'HELPDESK_PASSWORD' is not set "
                + "(set it, or write ${HELPDESK_PASSWORD:-default})",
        ])
    }

    @Test func everyMissingVariableIsReportedOnceAlongsideOtherErrors() {
        #expect(errorLines {
            _ = try YAMLDecoder(interpolation: .environment([:])).decode(
                Server.self, from: "host: ${A}\nport: ${B}\nextra: 1\n", file: "config.yaml")
        } == [
            "config.yaml:1:7: environment variable 'A' is not set (set it, or write ${A:-default})",
            "config.yaml:2:7: environment variable 'B' is not set (set it, or write ${B:-default})",
            "config.yaml:3:1: unknown key 'extra' (expected one of: host, port, password)",
        ])
    }

    @Test func doubledDollarEscapesAReference() throws {
        #expect(try load("a: $${HOST} costs $5 and $$\n") == ["a": "${HOST} costs $5 and $$"])
    }

    @Test func keysAreNotInterpolated() throws {
        #expect(try load("${HOST}: ${HOST}\n") == ["${HOST}": "chat.example"])
    }

    @Test func malformedReferencesAreErrors() {
        #expect(errorLines { _ = try load("a: ${HOST\nb: ${1X}\n") } == [
            "config.yaml:1:4: unterminated '${' (write $${ for a literal '${')",
            "config.yaml:2:4: '${1X}' is not a valid reference: write ${NAME} or ${NAME:-default}, "
                + "where NAME is letters, digits and '_' (write $${ for a literal '${')",
        ])
    }

    @Test func interpolationCanBeSwitchedOff() throws {
        #expect(try plainLoader.load("a: ${NOT_SET}\n").value == ["a": "${NOT_SET}"])
    }

    @Test func aliasesCarryTheSubstitutedValue() throws {
        #expect(try load("a: &h ${HOST}\nb: *h\n") == ["a": "chat.example", "b": "chat.example"])
    }
}
