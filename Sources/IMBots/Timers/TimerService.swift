import Lifecycle

/// Work whose time a bot's timer service keeps: moderation's (``ModerationTimers``:
/// schedules, quiet periods, verification deadlines, moderators to look up) and the
/// alert bridge's (``AlertTimers``: stored webhook deliveries, held resolves, dead-man's
/// switches, reconciliation with Alertmanager).
protocol TimedWork: Sendable {
    /// Once, before the first ``tick()``.
    func start() async
    /// Does what is due now; the wall time (ms) something is due next, nil for nothing.
    func tick() async -> Int64?
    /// Returns when something the work waits for changed before its next due time (a
    /// stored delivery, a new watch, the login); returns at once when cancelled.
    func changed() async
    /// Once, when the service stops.
    func stop()
}

extension TimedWork {
    func stop() {}
}

/// Makes the one timer service of every bot that has timed work (one of the runner's
/// standard services): moderation's timers for a bot with `schedule` or `quiet` rules,
/// `verify` actions or moderators; the alert bridge for a bot with `webhooks:`, whose
/// chat commands it adds to the bot's taps. A bot gets it when it starts: rules that
/// gain their first trigger or webhook in a reload take effect at its next start.
public struct BotTimers: BotServiceMaker {
    public init() {}

    public func makeService(for bot: BotHandle) -> (any Service)? {
        var works: [any TimedWork] = []
        if ModerationTimers.needed(by: bot.definition), let session = bot.session, let http = bot.http {
            works.append(ModerationTimers(run: BotRun(parts: bot.parts, outbox: bot.outbox, session: session, http: http)))
        }
        if !bot.definition.webhooks.isEmpty {
            let alerts = AlertTimers(parts: bot.parts, outbox: bot.outbox)
            bot.parts.taps.add(AlertCommands(parts: bot.parts, desk: alerts.desk))
            works.append(alerts)
        }
        return works.isEmpty ? nil : TimerService(parts: bot.parts, works: works)
    }
}

/// One bot's timers, on the runner's clock: one loop that does what each work has due,
/// then sleeps until the earliest next due time or until a work's wait ends. What the
/// works did is in the journal, so a restart neither repeats nor forgets it.
final class TimerService: Service {
    let name: String
    private let parts: BotParts
    private let works: [any TimedWork]

    init(parts: BotParts, works: [any TimedWork]) {
        name = "timers \(parts.name)"
        self.parts = parts
        self.works = works
    }

    func run() async throws {
        defer {
            for work in works { work.stop() }
        }
        for work in works { await work.start() }
        while !Task.isCancelled {
            // Read before the wall clock: a clock that moves between the two reads makes the
            // wait end early (and the loop look again), never late.
            let started = parts.time.elapsed
            var next: Int64?
            for work in works {
                if let due = await work.tick() { next = min(next ?? due, due) }
            }
            await sleep(until: next.map { started + .milliseconds(max(0, $0 - parts.time.wallMilliseconds)) })
        }
    }

    /// Until a work's wait ends or the clock reaches `deadline` (on its monotonic line).
    private func sleep(until deadline: Duration?) async {
        await withTaskGroup(of: Void.self) { group in
            for work in works { group.addTask { await work.changed() } }
            if let deadline { group.addTask { [parts] in try? await parts.time.sleep(until: deadline) } }
            await group.next()
            group.cancelAll()
        }
    }
}
