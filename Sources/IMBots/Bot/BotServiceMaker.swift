import HTTPServer
import IMProtocol
import Lifecycle
import Logging
import Synchronization

/// One more long-running part of every bot: a webhook inbox, a scheduler, moderation
/// state. The runner asks each maker it was given for a service per bot; the service
/// runs in the bot's task group, after the journal, the outbox and the lanes have
/// started and before the event loop, and stops after the event loop and before them.
public protocol BotServiceMaker: Sendable {
    /// The service for `bot`, or nil when this bot needs none (it has no webhooks, say).
    func makeService(for bot: BotHandle) -> (any Service)?
}

/// What a bot's extra service may use of the bot.
public struct BotHandle: Sendable {
    /// The bot's parts and outbox, for the services this module makes (moderation's timers,
    /// the alert bridge).
    let parts: BotParts
    let outbox: Outbox
    /// The bot's login, which the timers wait for; nil in tests of a part alone.
    let session: BotSession?
    /// The runner's client for `http` actions; nil in tests of a part alone.
    let http: HTTPActionClient?

    init(parts: BotParts, outbox: Outbox, session: BotSession? = nil, http: HTTPActionClient? = nil) {
        self.parts = parts
        self.outbox = outbox
        self.session = session
        self.http = http
    }

    /// The bot's name.
    public var name: String { parts.name }
    /// The bot's rules as they are now (a reload swaps them).
    public var definition: BotDefinition { parts.rules.now.definition }
    /// The runner's clock.
    public var time: any TimeSource { parts.time }
    /// The runner's log.
    public var logger: Logger { parts.logger }
    /// The runner's HTTP listener, where the service can take requests (webhooks).
    public var routes: RunnerRoutes { parts.routes }

    /// Queues an alert: journaled, then sent in order with the conversation's other
    /// messages, never shed. False when the conversation's queue is full of alerts: the
    /// caller must refuse its input (a webhook answers 503, so its sender retries).
    public func queueAlert(_ message: OutgoingMessage) -> Bool {
        let pending = PendingMessage(message, position: 0, sheddable: false)
        guard outbox.hasRoom(for: [pending]) else { return false }
        return RunLedger(parts: parts, outbox: outbox).keep(.queued([pending]), version: definition.version).isEmpty
    }
}

/// Paths of the runner's listener that bots' services answer (webhooks), beside the
/// runner's own `/metrics` and `/healthz`.
public final class RunnerRoutes: Sendable {
    /// Answers one request.
    public typealias Handler = @Sendable (Request) async -> Response
    /// The answer to a request given before any of its body is read (a missing or wrong
    /// secret), or nil to read the body and hand the request to the handler.
    public typealias Admission = @Sendable (RequestHead) -> Response?

    private struct Entry {
        var bodyLimit: Int
        var admit: Admission
        var handler: Handler
    }

    private let table = Mutex<[String: Entry]>([:])
    /// The paths the bot files declare, with their body limits: a service will answer them
    /// once its bot has started.
    private let declared = Mutex<[String: Int]>([:])

    /// The body limit of a path that names none: 1 MiB.
    public static let defaultBodyLimit = 1 << 20

    public init() {}

    /// Answers `path` with `handler` until `remove(_:)`, taking bodies of up to
    /// `bodyLimit` bytes (413 past it) from requests `admit` lets in; false when the path
    /// is taken.
    @discardableResult
    public func add(
        _ path: String, bodyLimit: Int = RunnerRoutes.defaultBodyLimit, admit: @escaping Admission = { _ in nil },
        _ handler: @escaping Handler
    ) -> Bool {
        table.withLock { table in
            guard table[path] == nil else { return false }
            table[path] = Entry(bodyLimit: bodyLimit, admit: admit, handler: handler)
            return true
        }
    }

    /// Stops answering `path`.
    public func remove(_ path: String) {
        _ = table.withLock { $0.removeValue(forKey: path) }
    }

    /// Sets the paths the bot files declare now (at the start, before the listener, and at
    /// each reload), with their body limits. Until a service answers one, the listener
    /// answers it 503 with `Retry-After`, not 404: a bot still starting must not make a
    /// sender drop what it sends (Alertmanager drops a notification answered with any 4xx).
    public func declare(_ paths: [String: Int]) {
        declared.withLock { $0 = paths }
    }

    func handler(for path: String) -> Handler? { table.withLock { Self.lookup(path, in: $0)?.handler } }

    /// Whether a bot file declares `path`, which no service may answer yet.
    func isDeclared(_ path: String) -> Bool { declared.withLock { Self.lookup(path, in: $0) != nil } }

    /// What to do with a request to one of these paths before its body is read: the
    /// route's own answer (its secret missing or wrong), 503 for a path a bot file
    /// declares that no service answers yet, else its body limit; nil for other paths.
    func admission(for head: RequestHead) -> BodyAdmission? {
        if let entry = table.withLock({ Self.lookup(head.path, in: $0) }) {
            if let refusal = entry.admit(head) { return .refuse(refusal) }
            return .read(limit: entry.bodyLimit)
        }
        guard isDeclared(head.path) else { return nil }
        return .refuse(WebhookRejection.unavailable(retryAfter: WebhookInbox.retryAfter).response)
    }

    /// The entry of `path`, or of `<parent>/*`: a path added with `/*` takes one more
    /// segment (a Slack webhook's URL carries its secret there).
    private static func lookup<Value>(_ path: String, in table: [String: Value]) -> Value? {
        if let exact = table[path] { return exact }
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return nil }
        let last = path[path.index(after: slash)...]
        guard !last.isEmpty, last != "*" else { return nil }
        return table[path[..<slash] + "/*"]
    }
}
