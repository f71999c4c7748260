import IMBots
import IMProtocol
import Testing

/// Member events (joins, leaves, removals) as rules see them: the `member:` matcher and
/// examples whose sender is the member unless `from:` names someone else.
@Suite struct MemberEventTests {
    static let now = Timestamp(milliseconds: 1_736_157_600_000)

    /// A `member_joined` of `member` in group:team, as the runner would hand it over.
    static func joined(_ member: BotEvent.Person, via: JoinVia? = nil, by: BotEvent.Person? = nil) -> BotEvent {
        BotEvent.made(.memberJoined, from: by, member: member, via: via, in: .group("team"), position: 5, at: now)
    }

    static func fires(_ member: String, _ event: BotEvent) throws -> Bool {
        let bot = try Bots.withRules("""
              - { name: r, when: { event: [member_joined, member_left], member: \(member) }, do: [ { send: hi } ] }
            """)
        return Bots.fired(bot, event) == ["r"]
    }

    @Test func theMemberMatcherReadsUsernameBotRoleAndVia() throws {
        let dave = BotEvent.Person("Dave", role: .member)
        #expect(try Self.fires("dave", Self.joined(dave)))
        #expect(try Self.fires("[erin, DAVE]", Self.joined(dave)))
        #expect(try !Self.fires("erin", Self.joined(dave)))
        #expect(try Self.fires("{ is_bot: false }", Self.joined(dave)))
        #expect(try !Self.fires("{ is_bot: true }", Self.joined(dave)))
        #expect(try Self.fires("{ is_bot: true }", Self.joined(BotEvent.Person("helper", isBot: true))))
        #expect(try Self.fires("{ role: member }", Self.joined(dave)))
        #expect(try !Self.fires("{ role: admin }", Self.joined(dave)))
        #expect(try Self.fires("{ role: admin }", Self.joined(BotEvent.Person("olga", role: .owner))))
        // A role the runner could not learn never satisfies a role matcher.
        #expect(try !Self.fires("{ role: member }", Self.joined(BotEvent.Person("dave"))))
        #expect(try Self.fires("{ via: invite }", Self.joined(dave, via: .invite)))
        #expect(try Self.fires("{ via: [open, approval] }", Self.joined(dave, via: .approval)))
        #expect(try !Self.fires("{ via: open }", Self.joined(dave, via: .invite)))
        #expect(try !Self.fires("{ via: open }", Self.joined(dave)))
        #expect(try Self.fires("{ username: dave, is_bot: false, role: member, via: open }", Self.joined(dave, via: .open)))
        // A message has no member.
        #expect(try !Bots.matches("{ member: alice }", "hello", from: "alice"))
    }

    @Test func theMemberMatcherExplainsWhatDoesNotHold() throws {
        let bot = try Bots.withRules("""
              - { name: r, when: { event: member_joined, member: { role: admin, via: invite } }, do: [ { send: hi } ] }
            """)
        let engine = RuleEngine(bot: bot)
        let context = Bots.context(bot)
        func reason(_ event: BotEvent) -> String { engine.explain(event, context: context).first?.reason ?? "" }
        #expect(reason(Self.joined(BotEvent.Person("dave"))) ==
                "member: the role of 'dave' is not known, rule wants admin or higher")
        #expect(reason(Self.joined(BotEvent.Person("dave", role: .member))) ==
                "member: 'dave' is member, rule wants admin or higher")
        #expect(reason(Self.joined(BotEvent.Person("dave", role: .admin), via: .open)) ==
                "member: 'dave' joined via open, rule wants invite")
        #expect(reason(Self.joined(BotEvent.Person("dave", role: .admin), via: .invite)) == "all conditions hold")
        // The runner looks a member's role up only for rules that ask.
        #expect(engine.decisionLookups.contains(.memberRole))
    }

    @Test func aMemberEventsSenderIsTheMemberUnlessSomeoneElseActed() async throws {
        let bot = try Bots.withRules("""
              - name: welcome
                when: { event: [member_joined, member_kicked], group: team }
                do: [ { send: "{{sender.nickname}} / {{member.nickname}}" } ]
                examples:
                  - { event: member_joined, member: { username: dave, nickname: Dave }, in: "group:team",
                      expect: { send: "Dave / Dave" } }
                  - { event: member_kicked, from: alice, member: { username: dave, nickname: Dave }, in: "group:team",
                      expect: { send: "alice / Dave" } }
                  - { event: member_joined, from: { username: dave, nickname: Dave }, in: "group:team",
                      expect: { send: "Dave / Dave" } }
              - name: by-role
                when: { event: member_joined, member: { role: admin, via: invite } }
                do: [ { send: "an admin came in" } ]
                examples:
                  - { event: member_joined, member: { username: olga, role: owner, via: invite }, in: "group:x",
                      expect: { rule: by-role } }
                  - { event: member_joined, member: { username: olga, role: member, via: invite }, in: "group:x",
                      expect: nothing }
            """)
        let results = await ExampleRunner.run(bot: bot)
        let failed = results.filter { !$0.passed }.map(\.description)
        #expect(failed.isEmpty, "\(failed)")
        #expect(results.count == 5)
    }

    @Test func bansMutesAndRoleChangesAreMemberEventsToo() async throws {
        let bot = try Bots.withRules("""
              - name: noted
                when: { event: [member_banned, member_unbanned, member_unmuted, role_changed], member: { is_bot: false } }
                do: [ { send: "{{member.nickname}} ({{event.type}}, by {{sender.username}})" } ]
                examples:
                  - { event: member_banned, from: alice, member: { username: dave, nickname: Dave }, in: "group:team",
                      expect: { send: "Dave (member_banned, by alice)" } }
                  - { event: role_changed, from: alice, member: { username: dave, nickname: Dave }, in: "group:team",
                      expect: { send: "Dave (role_changed, by alice)" } }
            """)
        let results = await ExampleRunner.run(bot: bot)
        let failed = results.filter { !$0.passed }.map(\.description)
        #expect(failed.isEmpty, "\(failed)")
        #expect(results.count == 2)
        let dave = BotEvent.Person("dave")
        for type in [EventType.memberBanned, .memberUnbanned, .memberUnmuted, .roleChanged] {
            let event = BotEvent.made(type, from: BotEvent.Person("alice"), member: dave, in: .group("team"),
                                      position: 5, at: Self.now)
            #expect(event.member?.username == "dave")
            #expect(Bots.fired(bot, event) == ["noted"])
        }
    }

    @Test func anExampleMemberEventNeedsItsMember() {
        #expect(Bots.errors("""
            bot: b
            account: { username: b, password: secret-password }
            rules:
              - { name: r, when: { event: member_left }, do: [ { send: bye } ], examples: [ { event: member_left, expect: nothing } ] }
            """) == [
                "bot.yaml:4:81: an example member_left event needs 'member' (who it is about; 'from' too when someone "
                    + "else acted)",
            ])
    }
}
