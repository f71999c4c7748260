import Foundation
import IMClient
import IMProtocol
import Lifecycle

/// Makes the timer service of every bot whose rules have a `schedule` or `quiet` trigger
/// or a `verify` action (one of the runner's standard services).
///
/// A bot gets it when it starts: rules that gain their first trigger in a reload take
/// effect at the bot's next start.
public struct ModerationTimers: BotServiceMaker {
    public init() {}

    public func makeService(for bot: BotHandle) -> (any Service)? {
        guard ModerationService.needed(by: bot.definition), let session = bot.session, let http = bot.http else { return nil }
        return ModerationService(parts: bot.parts, outbox: bot.outbox, session: session, http: http)
    }
}

/// One bot's timers, on the runner's clock: runs `schedule` rules when they are due (and
/// the runs missed while the runner was down, as `missed:` says), `quiet` rules once their
/// quiet period has passed, and removes newcomers who did not answer their verification in
/// time. What it did is in the journal (`ModerationBook`), so a restart neither repeats
/// nor forgets it.
final class ModerationService: Service {
    let name: String
    private let parts: BotParts
    private let session: BotSession
    private let trigger: TriggerRun

    init(parts: BotParts, outbox: Outbox, session: BotSession, http: HTTPActionClient) {
        name = "timers \(parts.name)"
        self.parts = parts
        self.session = session
        trigger = TriggerRun(parts: parts, outbox: outbox, http: http)
    }

    static func needed(by definition: BotDefinition) -> Bool {
        !definition.moderation.moderators.isEmpty || definition.rules.contains { rule in
            rule.trigger != nil || rule.actions.contains { $0.kind == .verify }
        }
    }

    private var book: ModerationBook { parts.moderation.book }

    func run() async throws {
        // Calls need the login; what fell due meanwhile runs right after.
        await session.loggedIn.wait()
        let started = parts.time.wallMilliseconds
        // The set-up after the login looked the moderators up just now.
        var moderatorLookup = started + ModeratorSetup.retry.milliseconds
        parts.rules.onReplace { [book] in book.changed.ring() }
        while !Task.isCancelled {
            let next = await tick(started: started, moderatorLookup: &moderatorLookup)
            await sleep(until: next)
        }
    }

    /// Does what is due now; the wall time (ms) of the next thing due, if any.
    private func tick(started: Int64, moderatorLookup: inout Int64) async -> Int64? {
        let now = parts.time.wallMilliseconds
        let rules = parts.rules.now.definition.rules
        let state = book.state
        var next: Int64?
        func later(_ time: Int64?) { if let time { next = min(next ?? time, time) } }

        // Moderators whose account did not exist yet (or who were listed by a reload).
        let listed = parts.rules.now.definition.moderation.moderators
        if listed.contains(where: { book.moderator(named: $0) == nil }) || listed.count != (state.moderators ?? [:]).count {
            if moderatorLookup <= now {
                await ModeratorSetup(parts: parts).run()
                moderatorLookup = now + ModeratorSetup.retry.milliseconds
            }
            later(moderatorLookup)
        }

        for rule in rules {
            guard let trigger = rule.trigger, case .schedule(let cron, let zone, let missed) = trigger.kind else { continue }
            let timeZone = zone ?? TimeZone(identifier: parts.rules.now.definition.timezone ?? "UTC") ?? .gmt
            guard let last = state.schedules[trigger.id] else {
                // First start with this schedule: it counts from now, nothing was missed.
                book.setScheduled(rule: trigger.id, at: now)
                later(cron.next(after: now, in: timeZone))
                continue
            }
            var due: [Int64] = []
            var time = cron.next(after: last, in: timeZone)
            while let current = time, current <= now {
                due.append(current)
                if due.count > 1_000 { due.removeFirst() }
                time = cron.next(after: current, in: timeZone)
            }
            if let latest = due.last {
                for run in Self.runs(due, missed: missed, started: started) {
                    await self.trigger.fire(trigger, at: run, conversation: nil)
                }
                book.setScheduled(rule: trigger.id, at: latest)
            }
            later(time)
        }

        for (key, watch) in state.quiet {
            let id = String(key.prefix { $0 != "/" })
            guard let trigger = rules.lazy.compactMap(\.trigger).first(where: { $0.id == id }),
                  case .quiet(_, let within) = trigger.kind else {
                // Its rule is gone.
                book.setQuiet(rule: id, conversation: watch.conversation, nil)
                continue
            }
            let due = watch.last + within
            if due <= now {
                await self.trigger.fire(trigger, at: due, conversation: watch.conversation)
                book.setQuiet(rule: id, conversation: watch.conversation, nil)
            } else {
                later(due)
            }
        }

        for pending in state.verifications.values {
            if pending.deadline <= now {
                await trigger.expire(pending)
            } else {
                later(pending.deadline)
            }
        }
        return next
    }

    /// The due times to run: those after the service started, and of those missed before
    /// it, none, the latest or all (at most the latest 100), as `missed:` says.
    static func runs(_ due: [Int64], missed policy: TriggerCondition.MissedRuns, started: Int64) -> [Int64] {
        let missed = due.filter { $0 < started }
        let onTime = due.filter { $0 >= started }
        switch policy {
        case .skip: return onTime
        case .once: return missed.suffix(1) + onTime
        case .all: return missed.suffix(100) + onTime
        }
    }

    /// Until `time` (wall ms) passes or the book changes (a new watch or verification).
    private func sleep(until time: Int64?) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [book] in await book.changed.wait() }
            if let time {
                let wait = Duration.milliseconds(max(0, time - parts.time.wallMilliseconds))
                group.addTask { [parts] in try? await parts.time.sleep(for: wait) }
            }
            await group.next()
            group.cancelAll()
        }
    }
}
