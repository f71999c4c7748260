import IMBots
import Testing

@Suite("Alert commands from chat")
struct AlertCommandTests {
    @Test("commands parse with their arguments")
    func parse() throws {
        #expect(try AlertCommand.parse("/silence 2h deploying the fix")
                == .silence(duration: .seconds(7200), matchers: [], reason: "deploying the fix"))
        #expect(try AlertCommand.parse("/silence 1h30m") == .silence(duration: .seconds(5400), matchers: [], reason: nil))
        #expect(try AlertCommand.parse("/silence@alerts 1d") == .silence(duration: .seconds(86_400), matchers: [], reason: nil))
        #expect(try AlertCommand.parse("/refresh") == .refresh)
        #expect(try AlertCommand.parse("/resolve") == .resolve)
        #expect(try AlertCommand.parse("/confirm") == .confirm)
        #expect(try AlertCommand.parse("  /silences") == .silences)
        #expect(try AlertCommand.parse("/unsilence 3f2a-11") == .unsilence(id: "3f2a-11"))
        #expect(try AlertCommand.parse("/ACK") == .ack)
        #expect(try AlertCommand.parse("/ticket x") == nil, "other commands are left to other rules")
        #expect(try AlertCommand.parse("silence 2h") == nil)
    }

    @Test("matchers come from the arguments before the reason, with Alertmanager's four operators")
    func matchers() throws {
        #expect(try AlertCommand.parse("/silence 1h instance=api-2 disk full on api-2") == .silence(
            duration: .seconds(3600), matchers: [SilenceMatcher(name: "instance", value: "api-2")],
            reason: "disk full on api-2"))
        #expect(try AlertCommand.parse(#"/silence 2h job!=node instance=~"api-[0-9]+" severity!~warn.* env="blue green""#)
            == .silence(duration: .seconds(7200), matchers: [
                SilenceMatcher(name: "job", value: "node", isEqual: false),
                SilenceMatcher(name: "instance", value: "api-[0-9]+", isRegex: true),
                SilenceMatcher(name: "severity", value: "warn.*", isRegex: true, isEqual: false),
                SilenceMatcher(name: "env", value: "blue green"),
            ], reason: nil))
        #expect(try AlertCommand.parse("/silence 1h why: instance=x") == .silence(
            duration: .seconds(3600), matchers: [], reason: "why: instance=x"), "matchers come before the reason")
        #expect(SilenceMatcher(name: "instance", value: "api-[0-9]+", isRegex: true).matches(["instance": "api-12"]))
        #expect(!SilenceMatcher(name: "instance", value: "api-[0-9]+", isRegex: true).matches(["instance": "xapi-1"]))
        #expect(SilenceMatcher(name: "job", value: "node", isEqual: false).matches(["instance": "api-12"]))
    }

    @Test("bad arguments get a reply with the usage", arguments: [
        ("/silence 1h instance=~(", "does not compile"), ("/silence 1h env=\"blue", "never closes"),
        ("/silence", "usage: /silence"), ("/silence soon", "not a duration"), ("/silence 2x", "not a duration"),
        ("/silence 30s", "from 1m to 30d"), ("/silence 31d", "from 1m to 30d"), ("/unsilence", "usage: /unsilence"),
        ("/unsilence a b", "usage: /unsilence"),
    ])
    func invalid(_ text: String, _ phrase: String) {
        do {
            _ = try AlertCommand.parse(text)
            Issue.record("\(text) parsed")
        } catch {
            #expect(error.description.contains(phrase), "\(text): \(error)")
        }
    }

    @Test("durations")
    func durations() {
        #expect(AlertCommand.parseDuration("90s") == .seconds(90))
        #expect(AlertCommand.parseDuration("1w") == .seconds(604_800))
        #expect(AlertCommand.parseDuration("2H") == .seconds(7200))
        #expect(AlertCommand.parseDuration("") == nil)
        #expect(AlertCommand.parseDuration("10") == nil)
        #expect(AlertCommand.parseDuration("h") == nil)
        #expect(AlertCommand.parseDuration("99999999999h") == nil)
    }
}
