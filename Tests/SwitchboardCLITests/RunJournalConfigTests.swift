import Testing

/// `runner.journal`, `runner.id` and `runner.lease` are checked before anything starts.
@Suite struct RunJournalConfigTests {
    @Test(arguments: [
        ("journal: server", "runner.journal: server needs runner.id"),
        ("journal: servers", "runner.journal must be 'folder' or 'server', not 'servers'"),
        ("journal: server, id: 'a b'", "runner.id 'a b' must be 1 to 64 printable characters"),
        ("journal: server, id: a, lease: { ttl: 0.5 }", "runner.lease.ttl must be 1 to 600 seconds"),
        ("journal: server, id: a, lease: { ttl: 2, retry: 3 }", "runner.lease.retry must be 0.1 seconds to runner.lease.ttl"),
        ("lease: { ttl: 5 }", "runner.lease applies to runner.journal: server only"),
    ])
    func aBadJournalSettingStopsTheStartNamingTheKey(_ settings: String, _ message: String) async throws {
        let sandbox = Sandbox()
        defer { sandbox.remove() }
        let config = try sandbox.write(
            "config.yaml", "runner: { server: 'http://127.0.0.1:9', bots: bots, listen: '127.0.0.1:0', \(settings) }\n")
        try sandbox.write("bots/greeter.yaml", BotTexts.greeter)

        let result = await sandbox.run(["run", "--config", config])

        #expect(result.status == 2)
        #expect(result.errorLines.contains { $0.contains(message) }, "\(result.errorLines)")
    }
}
