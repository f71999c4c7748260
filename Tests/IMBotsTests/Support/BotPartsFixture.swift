import Foundation
@testable import IMBots
import IMClient
import IMProtocol
import Lifecycle
import Logging
import TestSupport

/// The parts of one bot over a fake server, a memory journal and a manual clock: for
/// tests of the outbox, the journal and the event handler without a real server.
struct BotPartsFixture {
    let parts: BotParts
    let store: MemoryJournalStore
    let time: ManualTime
    let logs = LogWatch()
    let auditPath: String

    init(bot: String = """
        bot: testbot
        account: { username: testbot, password: secret-password }
        limits: { per_conversation: 1000/s, per_group: 1000/s, total: 1000/s, queue: 3 }
        rules:
          - { name: answer, when: { direct: true }, do: [ { reply: "re: {{message.text}}" } ] }
        """, transport: any HTTPTransport, time: ManualTime = ManualTime()) async throws {
        let definition = try Bots.load(bot)
        self.time = time
        store = MemoryJournalStore()
        let logger = Logger(label: "test", level: .debug, sink: logs)
        let journal = try await BotJournal(bot: definition.name, store: store, initialState: [:],
                                           writer: JournalWriter(time: time), logger: logger)
        let folder = TestServer.temporaryDirectory()
        auditPath = folder + "/audit.log"
        let metrics = RunnerMetrics()
        let audit = try AuditLog(path: auditPath, metrics: metrics, logger: logger)
        let configuration = RunnerConfiguration(
            serverURL: "http://127.0.0.1:1", botsDirectory: folder, stateDirectory: folder, environment: [:],
            time: time)
        let client = IMClient(
            serverURL: configuration.serverURL, transport: transport, token: "sbt_test",
            configuration: .init(sendRetry: .never, sleep: { try await time.sleep(for: $0) }))
        parts = BotParts(
            name: definition.name, client: client, transport: transport, rules: LiveRules(definition, time: time),
            journal: journal, time: time,
            reporter: BotReporter(bot: definition.name, metrics: metrics, audit: audit, logger: logger, time: time),
            configuration: configuration, routes: RunnerRoutes())
    }

    /// The audit log's lines.
    var auditLines: [String] {
        (try? String(contentsOfFile: auditPath, encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
    }

    /// A reply to `address` with client id `id`.
    static func reply(to address: ConversationAddress, id: String, text: String? = nil) -> PendingMessage {
        PendingMessage(
            OutgoingMessage(to: address, text: text ?? "to \(address)", clientMessageID: id, rule: "answer",
                            action: .reply),
            position: 1)
    }
}
