/// Small bot files the command tests write into their sandbox. Line and column numbers
/// in the tests refer to these texts, so edit them together.
enum BotTexts {
    /// A good bot: two rules, three examples that pass.
    static let greeter = """
        bot: greeter
        account: { username: greeter, password: "${GREETER_PASSWORD:-not-a-secret}" }
        listen: [direct, "group:lobby"]
        rules:
          - name: greet
            when: { text: { regex: '^(hi|hello)\\b', ignore_case: true } }
            do:
              - reply: "Hi {{sender.nickname}}!"
              - stop: true
            examples:
              - { from: alice, text: "hello there", expect: { reply: "Hi alice!" } }
              - { from: alice, text: "HI", in: "group:lobby", expect: { reply: "Hi alice!" } }
          - name: fallback
            when: { direct: true }
            do:
              - reply: "Say hi, {{sender.username}}."
            examples:
              - { from: bob, text: "what?", expect: { reply: "Say hi, bob." } }

        """

    /// Loads, but two of its four examples fail: 10:9 (a reply that differs) and 19:9
    /// (a second rule fires where nothing is expected).
    static let failing = """
        bot: failing
        account: { username: failing, password: not-a-secret }
        rules:
          - name: greet
            when: { text: { starts_with: hello } }
            do:
              - reply: "Hi {{sender.nickname}}!"
            examples:
              - { from: alice, text: "hello", expect: { reply: "Hi alice!" } }
              - from: bob
                text: "hello"
                expect: { reply: "Hi Bob!" }
          - name: quiet
            when: { text: { contains: shh } }
            do:
              - reply: "..."
            examples:
              - { from: alice, text: "shh", expect: { reply: "..." } }
              - { from: alice, text: "hello shh", expect: nothing }

        """

    /// Four problems: an unset variable (2:40), a regex that does not compile (5:28),
    /// a misspelt action (7:9), an unknown template variable (11:20).
    static let broken = """
        bot: broken
        account: { username: broken, password: "${BROKEN_PASSWORD}" }
        rules:
          - name: greet
            when: { text: { regex: '(unclosed' } }
            do:
              - repyl: "hi"
          - name: other
            when: { direct: true }
            do:
              - reply: "Hi {{sendr.nickname}}"

        """
}
