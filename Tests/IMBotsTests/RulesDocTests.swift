import Foundation
@testable import IMBots
import IMProtocol
import TestSupport
import Testing

/// docs/rules.md stays true: its table of template paths is the one `check` uses, and the
/// bots of "Your first bot in ten minutes" do what the section says.
@Suite struct RulesDocTests {
    @Test func theTemplateTableListsEveryPathWithItsType() throws {
        let section = try RulesDoc().section("Templates")
        let rows = section.split(separator: "\n").filter { $0.hasPrefix("| `") }
        let documented = rows.compactMap { row -> String? in
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            return cells.count >= 2 ? "\(cells[0]) \(cells[1])" : nil
        }
        let table = TemplateVariables.all.map { "`\($0.written)` \($0.type)" }
        #expect(documented == table)
    }

    @Test func theFirstBotsCheckAndTheirExamplesPassAsTheSectionSays() async throws {
        let section = try RulesDoc().section("Your first bot in ten minutes")
        let files = RulesDoc.botFiles(in: section)
        #expect(files.map(\.name) == ["faq.yaml", "greeter.yaml"])
        let folder = try Self.write(files)
        defer { try? FileManager.default.removeItem(atPath: folder) }

        let catalog = await BotCatalog.read(folder: folder, environment: [:]).runningExamples()
        #expect(catalog.problems.isEmpty, "\(catalog.problems)")
        let faq = try #require(catalog.bots.first { $0.name == "faq" })
        let examples = faq.rules.reduce(0) { $0 + $1.examples.count }
        #expect(RulesDoc.claim(after: "switchboard check bots/faq.yaml", in: section)
                == "bots/faq.yaml: ok (bot 'faq': \(faq.rules.count) rules, \(examples) examples)")
        let results = await ExampleRunner.run(bot: faq)
        #expect(RulesDoc.claim(after: "switchboard test bots/faq.yaml", in: section)
                == "\(results.filter(\.passed).count) passed, \(results.filter { !$0.passed }.count) failed")

        // Step 4's explanation.
        let order = RuleEngine(bot: faq).explain(Bots.message("where is order 77?"), context: Bots.context(faq))
            .first { $0.rule == "order" }
        #expect(order?.description == "order: fired — all conditions hold (matched = 'order 77', match.1 = '77', "
                + "match.id = '77'); its stop ends evaluation")
        #expect(section.contains("`order: fired — all conditions hold (matched =\n'order 77', match.1 = '77', match.id = "
                                 + "'77'); its stop ends evaluation`"))

        // Step 7: the mistake is reported as the section shows.
        let greeter = try #require(files.first { $0.name == "greeter.yaml" }?.text)
        let claim = try #require(RulesDoc.claim(after: "switchboard check bots/greeter.yaml", in: section))
        let shown = claim.hasSuffix(" ...") ? String(claim.dropLast(4)) : claim
        do {
            _ = try BotLoader.load(text: greeter.replacingOccurrences(of: "{{member.nickname}}", with: "{{member.nick}}"),
                                   file: "bots/greeter.yaml", directory: folder, environment: [:])
            Issue.record("the mistake should be reported")
        } catch {
            #expect(error.errors.count == 1)
            #expect(error.errors.first?.description.hasPrefix(shown) == true, "\(error.errors) vs \(shown)")
        }
    }

    static func write(_ files: [(name: String, text: String)]) throws -> String {
        let folder = TestServer.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for file in files { try file.text.write(toFile: folder + "/" + file.name, atomically: true, encoding: .utf8) }
        return folder
    }
}

extension ServerSuites {
    /// The section's bots, run by a runner against a real server, answer as it says.
    @Suite(.timeLimit(.minutes(3))) struct FirstBotTests {
        @Test func theFirstBotsAnswerAndGreetLikeTheSectionSays() async throws {
            let files = RulesDoc.botFiles(in: try RulesDoc().section("Your first bot in ten minutes"))
            try await withBotsFolder { server, fixture, adminToken in
                for file in files { try fixture.write(file.text, as: file.name) }
                let (alice, _) = try await server.client.register("alice")
                #expect(try await alice.send("POST", "/v1/groups", json: CreateConversationRequest(name: "team", join: .open))
                    .status == 201)
                try await withRunningRunner(fixture.configuration(server: server, adminToken: adminToken)) { running in
                    try await alice.awaitUser("faq")
                    try await alice.awaitUser("greeter")
                    try await alice.awaitMember("greeter", of: "team")
                    try await server.awaitParkedPolls(2)

                    var start = try await alice.cursorNow()
                    try await alice.say("What are your hours?", to: "faq")
                    try await alice.say("tell me a joke", to: "faq")
                    try await alice.say("/status api", to: "faq")
                    // The fallback is dry: it says nothing, so the two answers are all there is.
                    #expect(try await alice.messages(from: "faq", count: 2, after: start) == [
                        "We are open 9:00-17:00, Monday to Friday.",
                        "api: all systems normal (1 questions answered so far).",
                    ])

                    let (dave, _) = try await server.client.register("dave")
                    start = try await alice.cursorNow()
                    #expect(try await dave.send("POST", "/v1/groups/team/join").status == 200)
                    let asked = try await dave.send("POST", "/v1/conversations/group:team/messages",
                                                    json: SendMessageRequest(text: "/rules"))
                    #expect(asked.status == 201)
                    #expect(try await alice.messages(from: "greeter", count: 2, after: start) == [
                        "Welcome to the team, dave! Say /rules to read the house rules.",
                        "1. Be kind. 2. Keep it on topic.",
                    ])
                    let quoted = try await alice.get("/v1/conversations/group:team/messages?limit=1").decode(MessagePage.self)
                    #expect(quoted.messages.first?.replyTo == (try asked.decode(Message.self).id))
                    #expect(running.logs.contains("faq") && !running.runner.health.isDegraded)
                }
            }
        }
    }
}
