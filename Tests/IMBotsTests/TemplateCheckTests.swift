import Foundation
import IMClient
@testable import IMBots
import IMProtocol
import Templates
import Testing

/// `check` judges every template down to the leaf: each path is one the rule's event,
/// matchers, state and earlier http actions provide, or an error at its tag with a
/// suggestion.
@Suite struct TemplateCheckTests {
    /// A bot whose one rule has `when` and replies with `template` (one line, so the
    /// error's column is the template's plus 20).
    static func errors(_ template: String, when: String = "{ command: status }",
                       header: String = "state: { questions: 0 }") -> [String] {
        Bots.errors("""
            bot: b
            account: { username: b, password: secret-password }
            \(header)
            rules:
              - name: r
                when: \(when)
                do:
                  - http: { url: "https://status.example.com/x", as: created }
                  - reply: "\(template)"
            """)
    }

    @Test(arguments: [
        ("{{sender.nick}}", "{ command: status }",
         "unknown template variable 'sender.nick' (did you mean 'sender.nickname'?): 'sender' has no field 'nick' "
            + "(its fields: nickname, username, id, is_bot, avatar_url, signature, attrs.NAME)"),
        ("{{state.questoins}}", "{ command: status }",
         "unknown template variable 'state.questoins' (did you mean 'state.questions'?): the bot's state has no key "
            + "'questoins' (its keys: questions; a key is known once 'state:' gives it a value or a set or increment "
            + "action writes it)"),
        ("{{match.thing}}", "{ text: { regex: 'order (?<id>[0-9]+)' } }",
         "unknown template variable 'match.thing': the rule's regex has no group 'thing' (its groups: 1, id)"),
        ("{{match.ids}}", "{ text: { regex: 'order (?<id>[0-9]+)' } }",
         "unknown template variable 'match.ids' (did you mean 'match.id'?): the rule's regex has no group 'ids' "
            + "(its groups: 1, id)"),
        ("{{match.0}}", "{ text: { regex: 'order (?<id>[0-9]+)' } }",
         "'{{match.0}}' is refused: positions count from 1 everywhere ('{{match.1}}' is the first group); the whole "
            + "match is '{{matched}}'"),
        ("{{argv.0}}", "{ command: status }",
         "'{{argv.0}}' is always empty: positions in a list count from 1 ('{{argv.1}}' is the first)"),
        ("{{argv.first}}", "{ command: status }",
         "unknown template variable 'argv.first': 'argv' is a list of text; write argv.1 for its first item, "
            + "argv.length for their number, or repeat over it with {{#argv}}...{{/argv}}"),
        ("{{args.2}}", "{ command: status }",
         "unknown template variable 'args.2' (did you mean 'argv.2'?): 'args' is the arguments as one text; 'argv' "
            + "is them as a list, 'argv.1' the first"),
        ("{{args.0}}", "{ command: status }",
         "unknown template variable 'args.0' (did you mean 'argv.1'?): 'args' is the arguments as one text; 'argv' "
            + "is them as a list, 'argv.1' the first"),
        ("{{args}}", "{ direct: true }",
         "'{{args}}' is always empty in rule 'r': 'args' is set by a 'command' matcher, which the rule does not have"),
        ("{{match.0}}", "{ command: status }",
         "'{{match.0}}' is always empty in rule 'r': 'match' holds the groups of a text 'regex', which the rule "
            + "does not have"),
        ("{{member.nickname}}", "{ command: status }",
         "'{{member.nickname}}' is always empty in rule 'r': 'member' is set for member events (member_joined, "
            + "member_left, member_kicked, member_banned, member_unbanned, member_muted, member_unmuted, role_changed, "
            + "join_requested), "
            + "and the rule handles message events (its 'event:' says which)"),
        ("{{message.txt}}", "{ command: status }",
         "unknown template variable 'message.txt' (did you mean 'message.text'?): 'message' has no field 'txt' "
            + "(its fields: text, id, seq, created_at, reply_to)"),
        ("{{created.bdy.id}}", "{ command: status }",
         "unknown template variable 'created.bdy.id' (did you mean 'created.body'?): 'created' has no field 'bdy' "
            + "(its fields: status, ok, text, body, headers.NAME)"),
        ("{{now.hour.x}}", "{ command: status }",
         "unknown template variable 'now.hour.x': 'now.hour' is number, which has no fields"),
        ("{{sendr.nickname}}", "{ command: status }",
         "unknown template variable 'sendr.nickname' (did you mean 'sender'?) (known: args, argv, bot, conversation, "
            + "created, event, message, now, sender, state)"),
        ("{{sender}}", "{ command: status }",
         "'{{sender}}' renders nothing: it is an object; name one of its fields, e.g. '{{sender.nickname}}'"),
        ("{{created}}", "{ command: status }",
         "'{{created}}' renders nothing: it is an object; name one of its fields, e.g. '{{created.status}}'"),
    ])
    func aPathTheRuleDoesNotProvideIsAnErrorWithASuggestion(_ template: String, _ when: String, _ message: String) {
        #expect(Self.errors(template, when: when) == ["bot.yaml:9:17: \(message)"])
    }

    @Test func aNameInsideASectionIsLookedUpInTheSectionsValueThenOutwards() {
        #expect(Self.errors("{{#sender}}{{nick}}{{/sender}}") == [
            "bot.yaml:9:28: unknown template variable 'nick' inside {{#sender}} (did you mean 'nickname'?) (known "
                + "there: nickname, username, id, is_bot, avatar_url, signature, attrs.NAME; at the top: args, argv, "
                + "bot, conversation, created, event, message, now, sender, state)",
        ])
        #expect(Self.errors("{{#sender}}{{attrs.team}} {{message.txt}}{{/sender}}") == [
            "bot.yaml:9:43: unknown template variable 'message.txt' (did you mean 'message.text'?): 'message' has no "
                + "field 'txt' (its fields: text, id, seq, created_at, reply_to)",
        ])
    }

    @Test(arguments: [
        ("{{sender.nickname}} {{sender.attrs.team}} {{sender.is_bot}}", "{ command: status }"),
        ("{{argv.1}} {{argv.2}} {{argv.length}} {{args}} {{#argv}}<{{.}}>{{/argv}}", "{ command: status }"),
        ("{{matched}} {{match.1}} {{match.id}}", "{ text: { regex: 'order (?<id>[0-9]+)' } }"),
        ("{{match.2}} {{args}}", "{ any: [ { command: s }, { text: { regex: '(a)(b)' } } ] }"),
        ("{{created.status}} {{created.ok}} {{created.body.items.1.name}} {{created.headers.etag}}",
         "{ command: status }"),
        ("{{state.questions}} {{state.spam.count}} {{state.last.by}}", "{ command: status }"),
        ("{{member.nickname}} {{member.attrs.team}}", "{ event: member_joined }"),
        ("{{member.username}} {{message.text}}", "{ event: any }"),
        ("{{now.weekday}} {{now.local}} {{event.type}} {{event.at}} {{bot.id}} {{conversation.name}}",
         "{ command: status }"),
        ("{{#sender}}{{nickname}} {{conversation.name}}{{/sender}} {{^state.questions}}none{{/state.questions}}",
         "{ command: status }"),
        ("{{#argv}}{{.}} {{sender.nickname}}{{/argv}} {{#created.body.items}}{{anything}}{{/created.body.items}}",
         "{ command: status }"),
    ])
    func aPathTheRuleProvidesIsNoError(_ template: String, _ when: String) {
        let header = """
            state: { questions: 0, last: { by: nobody } }
            """
        let errors = Bots.errors("""
            bot: b
            account: { username: b, password: secret-password }
            \(header)
            rules:
              - name: counter
                do: [ { increment: { key: spam.count } }, { set: { seen: true } } ]
              - name: r
                when: \(when)
                do:
                  - http: { url: "https://status.example.com/x", as: created }
                  - reply: "\(template)"
            """)
        #expect(errors.isEmpty, "\(template): \(errors)")
    }

    @Test func stateKeysFromSetAndIncrementAreKnownEverywhereInTheBot() {
        #expect(Self.errors("{{state.tickets}} {{state.last.id}} {{state.last.who}}", header: "") == [
            "bot.yaml:9:17: unknown template variable 'state.tickets': the bot's state has no key 'tickets' "
                + "(it has no keys yet; a key is known once 'state:' gives it a value or a set or increment action "
                + "writes it)",
            "bot.yaml:9:35: unknown template variable 'state.last.id': the bot's state has no key 'last' "
                + "(it has no keys yet; a key is known once 'state:' gives it a value or a set or increment action "
                + "writes it)",
            "bot.yaml:9:53: unknown template variable 'state.last.who': the bot's state has no key 'last' "
                + "(it has no keys yet; a key is known once 'state:' gives it a value or a set or increment action "
                + "writes it)",
        ])
        #expect(Bots.errors("""
            bot: b
            account: { username: b, password: secret-password }
            rules:
              - { name: one, do: [ { increment: tickets }, { set: { last: { id: "{{state.tickets}}" } } } ] }
              - { name: two, do: [ { reply: "{{state.tickets}} {{state.last.id}} {{state.last.who}}" } ] }
            """) == [
                "bot.yaml:5:70: unknown template variable 'state.last.who': 'state.last' has no field 'who' "
                    + "(its fields: id)",
            ])
    }

    @Test func anHTTPResultIsKnownAfterItsActionOnly() {
        #expect(Bots.errors("""
            bot: b
            account: { username: b, password: secret-password }
            rules:
              - name: r
                do:
                  - reply: "{{created.body.id}}"
                  - http: { url: "https://x.example/{{created.status}}", as: created }
                  - reply: "{{created.body.id}}"
            """) == [
                "bot.yaml:6:17: template variable 'created.body.id' is used before the http action that sets "
                    + "'created' (as: created)",
                "bot.yaml:7:41: template variable 'created.status' is used before the http action that sets "
                    + "'created' (as: created)",
            ])
    }

    @Test func aRuleWhoseWhenDoesNotDecodeIsNotJudgedOnWhatItWouldProvide() {
        // The regex is the one problem: the rule's match and args are not judged.
        #expect(Bots.errors("""
            bot: b
            account: { username: b, password: secret-password }
            rules:
              - { name: r, when: { text: { regex: '(unclosed' } }, do: [ { reply: "{{match.1}} {{args}}" } ] }
            """) == [
            "bot.yaml:4:39: invalid regex '(unclosed': a '(' at character 1 is never closed (add ')' where its group ends, "
                + "or write \\( to match a '(')",
        ])
    }

    // MARK: The table is what templates see

    /// Every leaf the renderer's context holds is a path of the table, of the table's type,
    /// and every path of the table the event provides is in the context.
    @Test(arguments: ["message", "member_joined"])
    func theTableDescribesExactlyWhatTemplatesRead(_ kind: String) throws {
        let bot = try Bots.withRules("  - { name: r, do: [ { set: { last: { id: x } } }, { increment: tickets } ] }",
                                     header: "state: { questions: 0 }")
        let now = Timestamp(milliseconds: 1_736_157_600_000)
        let event = BotEvent.made(EventType(rawValue: kind), from: BotEvent.Person("alice"),
                                  member: kind == "message" ? nil : BotEvent.Person("dave"),
                                  text: "order 12", in: .group("team"), position: 3, at: now)
        let bindings = Bindings(matched: "order 12", match: ["1": "12", "id": "12"], args: "a b", argv: ["a", "b"])
        var root = TemplateContext.base(event: event, context: Bots.context(bot), bindings: bindings)
        root["state"] = .object(["questions": 0, "last": ["id": "x"], "tickets": 1])
        root["created"] = RuleRun.value(of: TransportResponse(
            status: 200, headers: [("Content-Type", "application/json"), ("ETag", "1")], body: Data("{\"id\":1}".utf8)))
        let names = TemplateShape.Names(groups: ["1", "id"],
                                        state: TemplateCheck.declaredState(initial: ["questions": 0], rules: bot.rules),
                                        results: ["created"])
        let shape = TemplateShape.make(TemplateVariables.all, names: names)

        var leaves: [(path: [String], value: TemplateValue)] = []
        func walk(_ value: TemplateValue, _ path: [String]) {
            if case .object(let members) = value, !path.isEmpty, shape.find(path).isObject {
                for (key, member) in members { walk(member, path + [key]) }
            } else if case .object(let members) = value, path.isEmpty {
                for (key, member) in members { walk(member, [key]) }
            } else {
                leaves.append((path, value))
            }
        }
        walk(.object(root), [])
        for leaf in leaves {
            let name = leaf.path.joined(separator: ".")
            switch shape.find(leaf.path) {
            case .open: continue
            case .found(let node): #expect(node.type.admits(leaf.value), "\(name) is \(leaf.value), the table says \(node.type)")
            default: Issue.record("the context holds \(name), which the table does not have")
            }
        }
        let provided: Set<TemplateVariable.Source> = kind == "message"
            ? [.always, .feed, .messageEvents, .command, .regex, .state, .httpResult]
            : [.always, .feed, .memberEvents, .command, .regex, .state, .httpResult]
        for row in TemplateVariables.all where provided.contains(row.source) {
            let parts = row.parts.flatMap { part -> [String] in
                switch part {
                case "{group}": ["id"]
                case "{key}": ["questions"]
                case "{as}": ["created"]
                default: [part]
                }
            }
            // `*`: the object of any names must be there.
            let path = parts.last == "*" ? Array(parts.dropLast()) : parts
            #expect(Self.value(at: path, in: .object(root)) != nil, "the table has \(row.path), the context does not")
        }
    }

    private static func value(at path: [String], in root: TemplateValue) -> TemplateValue? {
        var value = root
        for part in path {
            guard let next = value[part] else { return nil }
            value = next
        }
        return value
    }
}

extension TemplateShape.Finding {
    var isObject: Bool {
        if case .found(let node) = self { return node.type == .object }
        return false
    }
}

extension TemplateType {
    /// Whether a rendered value fits the type (absent values fit every type).
    func admits(_ value: TemplateValue) -> Bool {
        switch (self, value) {
        case (.any, _), (_, .null): true
        case (.text, .string), (.time, .string), (.number, .int), (.number, .double), (.boolean, .bool),
             (.list, .array), (.object, .object): true
        default: false
        }
    }
}
