import Testing

@Suite("switchboard check")
struct CheckCommandTests {
    @Test func aGoodFileIsOkAndExitsZero() async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let file = try sandbox.write("bots/greeter.yaml", BotTexts.greeter)

        let result = await sandbox.run(["check", file])

        #expect(result.status == 0)
        #expect(result.outputLines == ["\(file): ok (bot 'greeter': 2 rules, 3 examples)", "1 file checked, 0 errors"])
        #expect(result.errors.isEmpty)
    }

    @Test func everyProblemIsPrintedWithFileLineAndColumnAndExitsTwo() async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let file = try sandbox.write("bots/broken.yaml", BotTexts.broken)

        let result = await sandbox.run(["check", file])

        #expect(result.status == 2)
        #expect(result.errorLines == [
            "\(file):2:40: environment variable 'BROKEN_PASSWORD' is not set (set it, or write ${BROKEN_PASSWORD:-default})",
            "\(file):5:28: invalid regex '(unclosed': a '(' at character 1 is never closed (add ')' where its group ends, "
                + "or write \\( to match a '(')",
            "\(file):7:9: unknown key 'repyl' (did you mean 'reply'?)",
            "\(file):11:20: unknown template variable 'sendr.nickname' (did you mean 'sender'?) "
                + "(known: bot, conversation, event, message, now, sender, state)",
        ])
        #expect(result.outputLines == ["1 file checked, 4 errors"])
    }

    /// One run shows everything: a too-short password near the top does not hide a
    /// misspelt action further down, nor a duplicate rule, nor another file's problems.
    @Test func everyErrorOfEveryFileIsReportedInOneRun() async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let first = try sandbox.write("bots/a.yaml", """
            bot: a
            account: { username: a, password: short }
            limits: { total: fast }
            rules:
              - name: r
                do: [ { repyl: hi } ]
              - name: r
                do: [ { reply: "{{nope}}" } ]
            """)
        let second = try sandbox.write("bots/b.yaml", """
            bot: ".."
            account: { username: b, password: long-enough-password }
            rules:
              - { name: r, when: { text: { regex: '(a|aa)+$' } }, do: [ { stop: true } ] }
            """)

        let result = await sandbox.run(["check", sandbox.path("bots")])

        #expect(result.status == 2)
        #expect(result.errorLines == [
            "\(first):2:35: the password must be 8 to 1024 bytes long (it is 5); leave it empty to have the runner "
                + "generate one",
            "\(first):3:18: 'fast' is not a rate (write COUNT/UNIT, e.g. 1/s, 20/min, 100/h, or 5/10s)",
            "\(first):6:13: unknown key 'repyl' (did you mean 'reply'?)",
            "\(first):7:5: duplicate rule name 'r' (first defined at 5:5)",
            "\(first):8:21: unknown template variable 'nope' "
                + "(known: bot, conversation, event, message, now, sender, state)",
            "\(second):1:6: '..' is not a valid name: it needs a letter, digit, '_' or '-' besides dots",
            "\(second):4:39: regex '(a|aa)+$' repeats a choice whose alternatives can start alike (like '(a|aa)+'), "
                + "which can take exponential time on some messages; make the alternatives start differently",
        ])
        #expect(result.outputLines == ["2 files checked, 7 errors"])
    }

    @Test func goodAndBadFilesAreReportedEachInItsPlace() async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        try sandbox.write("bots/broken.yaml", BotTexts.broken)
        try sandbox.write("bots/greeter.yaml", BotTexts.greeter)
        try sandbox.write("bots/notes.txt", "not a bot file")

        let result = await sandbox.run(["check", sandbox.path("bots")])

        #expect(result.status == 2)
        #expect(result.outputLines == [
            "\(sandbox.path("bots/greeter.yaml")): ok (bot 'greeter': 2 rules, 3 examples)",
            "2 files checked, 4 errors",
        ])
        #expect(result.errorLines.count == 4)
        #expect(result.errorLines.allSatisfy { $0.hasPrefix(sandbox.path("bots/broken.yaml") + ":") })
    }

    /// The runner refuses a file whose examples fail (its bot keeps its old rules), and
    /// check on the live folder says the same.
    @Test func aFailingExampleIsAProblemAsTheRunnerSeesIt() async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let file = try sandbox.write("bots/failing.yaml", BotTexts.failing)
        try sandbox.write("bots/greeter.yaml", BotTexts.greeter)

        let result = await sandbox.run(["check", sandbox.path("bots")])

        #expect(result.status == 2)
        #expect(result.errorLines == [
            "\(file):10:9: rule 'greet' example 2: failed: expected reply \"Hi Bob!\", got \"Hi bob!\" "
                + "(first difference at character 4)",
            "\(file):19:9: rule 'quiet' example 2: failed: expected nothing, but the bot would: reply \"Hi alice!\", "
                + "reply \"...\" (rules fired: greet, quiet)",
        ])
        #expect(result.outputLines == [
            "\(sandbox.path("bots/greeter.yaml")): ok (bot 'greeter': 2 rules, 3 examples)",
            "2 files checked, 2 errors",
        ])
    }

    @Test func anUnknownKeyGetsASuggestion() async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let file = try sandbox.write("typo.yaml", """
            bot: typo
            account: { username: typo, password: not-a-secret }
            listne: [direct]
            rules:
              - name: hello
                when: { text: { equls: hello } }
                do: [ { reply: hi } ]
            """)

        let result = await sandbox.run(["check", file])

        #expect(result.status == 2)
        #expect(result.errorLines == [
            "\(file):3:1: unknown key 'listne' (did you mean 'listen'?)",
            "\(file):6:19: 'text' needs one of: equals, contains, starts_with, ends_with, regex, any_word",
            "\(file):6:21: unknown key 'equls' (did you mean 'equals'?)",
        ])
    }

    @Test func aMissingVariableIsAnErrorAtItsPositionAndASetOneIsRead() async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let file = try sandbox.write("bots/broken.yaml", BotTexts.broken)

        let unset = await sandbox.run(["check", file])
        let set = await sandbox.run(["check", file], environment: ["BROKEN_PASSWORD": "from-the-environment"])

        let message = "\(file):2:40: environment variable 'BROKEN_PASSWORD' is not set"
        #expect(unset.errorLines.contains { $0.hasPrefix(message) })
        #expect(!set.errorLines.contains { $0.hasPrefix(message) })
        #expect(set.errorLines.count == 3)
    }

    @Test func withoutFilesTheConfigurationAndItsBotsFolderAreChecked() async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let config = try sandbox.write("config.yaml", "runner: { bots: my-bots }\n")
        try sandbox.write("my-bots/greeter.yaml", BotTexts.greeter)
        try sandbox.write("bots/broken.yaml", BotTexts.broken)  // not the configured folder

        let result = await sandbox.run(["check", "--config", config])

        #expect(result.status == 0)
        #expect(result.outputLines == [
            "\(config): ok",
            "\(sandbox.path("my-bots/greeter.yaml")): ok (bot 'greeter': 2 rules, 3 examples)",
            "2 files checked, 0 errors",
        ])
    }

    @Test func withFilesAndAConfigurationBothAreCheckedButNotTheBotsFolder() async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let config = try sandbox.write("config.yaml", "log_level: loud\n")
        let file = try sandbox.write("elsewhere/greeter.yaml", BotTexts.greeter)
        try sandbox.write("bots/broken.yaml", BotTexts.broken)

        let result = await sandbox.run(["check", "--config", config, file])

        #expect(result.status == 2)
        #expect(result.errorLines.count == 1)
        #expect(result.errorLines.first?.hasPrefix("\(config): log level 'loud' is not one of ") == true)
        #expect(result.outputLines == [
            "\(file): ok (bot 'greeter': 2 rules, 3 examples)",
            "2 files checked, 1 error",
        ])
    }

    @Test func problemsOfTheConfigurationFileAreReportedWithTheirPosition() async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let config = try sandbox.write("config.yaml", "runner:\n  bots: bots\n  lisen: 127.0.0.1:8090\n")

        let result = await sandbox.run(["check", "--config", config])

        #expect(result.status == 2)
        #expect(result.errorLines == ["\(config):3:3: unknown key 'lisen' (did you mean 'listen'?)"])
        #expect(result.outputLines == ["1 file checked, 1 error"])
    }

    @Test func aServerSectionWithABadValueIsReported() async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let config = try sandbox.write("config.yaml", "server: { registration: maybe }\n")
        try sandbox.write("bots/greeter.yaml", BotTexts.greeter)

        let result = await sandbox.run(["check", "--config", config])

        #expect(result.status == 2)
        #expect(result.errorLines == ["\(config): server.registration: 'maybe' is not open or closed"])
        #expect(result.outputLines.last == "2 files checked, 1 error")
    }

    @Test func aMissingBotsFolderIsAnError() async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let config = try sandbox.write("config.yaml", "log_level: info\n")

        let result = await sandbox.run(["check", "--config", config])

        #expect(result.status == 2)
        #expect(result.errorLines.count == 1)
        #expect(result.errorLines.first?.hasPrefix("\(sandbox.path("bots")): no such folder") == true)
    }

    @Test func aMissingFileIsAnError() async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }

        let result = await sandbox.run(["check", sandbox.path("nowhere.yaml")])

        #expect(result.status == 2)
        #expect(result.errorLines == ["\(sandbox.path("nowhere.yaml")): cannot read the file (does it exist, and may it be read?)"])
    }

    @Test func twoFilesDefiningTheSameBotAreAnError() async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let first = try sandbox.write("bots/a.yaml", BotTexts.greeter)
        let second = try sandbox.write("bots/b.yaml", BotTexts.greeter)

        let result = await sandbox.run(["check", sandbox.path("bots")])

        #expect(result.status == 2)
        #expect(result.errorLines == ["\(second): bot 'greeter' is also defined in \(first)"])
    }
}
