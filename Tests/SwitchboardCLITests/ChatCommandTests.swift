import Testing
@testable import switchboard

/// `switchboard chat`'s arguments; the screens themselves are tested in IMChatTests.
@Suite struct ChatCommandTests {
    @Test func aBadWidthOverrideIsAUsageErrorNamingTheItem() async {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let result = await sandbox.run(["chat"], environment: ["SWITCHBOARD_WIDTHS": "1F1E6-1F1FF=1,2605=3"])
        #expect(result.status == 2)
        #expect(result.errorLines.first == "switchboard: SWITCHBOARD_WIDTHS: width override '2605=3': expected KEY=1 or KEY=2")
    }

    @Test func aServerThatIsNotAnHTTPURLIsAUsageError() async {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let result = await sandbox.run(["chat", "--server", "ftp://example"])
        #expect(result.status == 2)
        #expect(result.errorLines.first == "switchboard: --server 'ftp://example' is not an http(s) URL")
    }

    @Test func chatTakesNoWords() async {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let result = await sandbox.run(["chat", "alice"])
        #expect(result.status == 2)
        #expect(result.errorLines.first == "switchboard: chat takes no arguments, only options")
    }

    @Test func aDeviceNameWithSpacesOrTooLongIsAUsageError() async {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        for name in ["my laptop", String(repeating: "x", count: 61), ""] {
            let result = await sandbox.run(["chat", "--device", name])
            #expect(result.status == 2)
            #expect(result.errorLines.first?.hasPrefix("switchboard: --device") == true)
        }
    }

    @Test func withoutATerminalItSaysSoAfterClaimingItsPlaceInTheHome() async {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let result = await sandbox.run(["chat", "--device", "desk-1"])
        #expect(result.status == 2)
        #expect(result.errorLines.first == "switchboard: switchboard chat needs a terminal (standard input and output are not one)")
    }
}
