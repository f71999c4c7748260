import IMClient
import IMProtocol
import Lifecycle
import Logging
import Synchronization

/// Runs one bot in whichever runner holds its lease (`runner.journal: server`): the
/// runner's service per bot while its file is there.
///
/// It logs in as the bot (a login of its own, device `lease:<bot>@<runner>`), then tries
/// to take the bot's lease; while another runner holds it, it tries again every
/// `LeaseSettings.retry`. Once it holds the lease it runs `work` (the bot, its journal on
/// the server under the lease's fence) and renews every third of the ttl. The bot stops
/// at once when a renewal answers `lease_lost`, when the journal store reports the same
/// (`lost`), or when no renewal got through before the lease's end as this runner counts
/// it: from the moment it sent the request that granted or renewed it, so the runner
/// always gives up no later than the server does. Then it tries to take the lease again
/// like any other runner. When it stops (the runner stops, or the bot's file goes) it
/// stops the bot first and releases the lease, so another runner takes the bot at its
/// next try instead of after the ttl. So is every holding the server may still count:
/// one let go unrenewed (the server counts its end from later), one granted to a take
/// under way as the keeper stops (the take runs to its answer, then what it got is
/// released), one a take whose answer was lost may have got (taken again, released).
///
/// What it knows of the lease (``holding``: here under a fence, another runner by name,
/// or neither) is what `/healthz` shows; holdings taken and lost are counted for
/// `/metrics`.
///
/// All time is the runner's `TimeSource`; only the server's clock decides when a lease
/// has ended for the others.
final class BotLeaseKeeper: Service {
    let name: String
    private let bot: String
    private let holder: String
    private let settings: LeaseSettings
    private let client: IMClient
    private let time: any TimeSource
    private let logger: Logger
    private let metrics: RunnerMetrics
    private let logIn: @Sendable () async -> Bool
    private let work: @Sendable (_ lease: BotLease, _ lost: @escaping @Sendable () -> Void) async -> Outcome
    private let state = Mutex(Holding.unknown)

    /// Who runs the bot, as this keeper last learnt it.
    enum Holding: Sendable, Equatable {
        /// Not known: the keeper has not asked yet, its last try failed, or its holding
        /// here just ended.
        case unknown
        /// This runner holds the lease and runs the bot under `fence`.
        case here(fence: Int64)
        /// Another runner holds it: `holder` as the server's refusal names it.
        case elsewhere(holder: String)
    }

    /// How the bot's run under one holding ended.
    enum Outcome: Sendable {
        /// It ran and ended by itself (its login was refused for good): the keeper stops.
        case finished
        /// It could not start (its journal could not be read): tried again later.
        case failedToStart
    }

    /// Why a holding ended.
    private enum Ending: Sendable, Equatable {
        case botEnded(Outcome)
        case lost
        case expired
        case cancelled
    }

    /// - Parameters:
    ///   - holder: this runner as the server sees it (its id and a per-process suffix).
    ///   - client: the keeper's own login of the bot, which `logIn` logs in.
    ///   - metrics: where holdings are counted; the bot's lease series show 0 from here on.
    ///   - logIn: logs `client` in (creating the account when the bot's file says so);
    ///     false when the login is refused for good or the task is cancelled.
    ///   - work: runs the bot under `lease` until cancelled; `lost` stops it.
    init(bot: String, holder: String, settings: LeaseSettings, client: IMClient, time: any TimeSource,
         logger: Logger, metrics: RunnerMetrics, logIn: @escaping @Sendable () async -> Bool,
         work: @escaping @Sendable (_ lease: BotLease, _ lost: @escaping @Sendable () -> Void) async -> Outcome) {
        self.name = "lease keeper \(bot)"
        self.bot = bot
        self.holder = holder
        self.settings = settings
        self.client = client
        self.time = time
        self.logger = logger
        self.metrics = metrics
        self.logIn = logIn
        self.work = work
        metrics.leaseWatched(bot: bot)
    }

    /// Who runs the bot now, as far as this runner knows.
    var holding: Holding { state.withLock { $0 } }

    /// The fencing number of the holding the bot runs under now; nil while this runner
    /// does not run it.
    var fence: Int64? {
        guard case .here(let fence) = holding else { return nil }
        return fence
    }

    func run() async throws {
        defer { metrics.leaseUnwatched(bot: bot) }
        guard await logIn() else { return }
        // Whether the last take failed with no answer after it may have reached the
        // server (a timeout, a lost connection): the server may have granted it.
        var unanswered = false
        while !Task.isCancelled {
            let asked = time.elapsed
            do {
                let lease = try await take()
                unanswered = false
                guard !Task.isCancelled else {
                    // Stopped while the take was answered: the server granted it.
                    await release(lease)
                    return
                }
                let ending = await hold(lease, since: asked)
                if ending == .botEnded(.finished) || ending == .cancelled { return }
            } catch where error.api?.reason == "lease_held" {
                unanswered = false
                let message = error.api?.message ?? ""
                if note(.elsewhere(holder: Self.holder(in: message))) {
                    logger.info("bot \(bot) runs in another runner: \(message)")
                }
            } catch where error.apiCode == .unauthorized {
                unanswered = false
                note(.unknown)
                logger.warning("bot \(bot): the lease keeper's login ended (\(error.message)); logging in again")
                guard await logIn() else { return }
                continue
            } catch {
                note(.unknown)
                unanswered = error.api == nil && error.code != .notLoggedIn && error.transport?.requestNotSent != true
                if error.code == .cancelled || Task.isCancelled { break }
                logger.warning("bot \(bot): its lease cannot be taken: \(error.message); trying again in \(settings.retry)")
            }
            do {
                try await time.sleep(for: settings.retry)
            } catch {
                break
            }
        }
        if unanswered { await settle() }
    }

    /// Gives up what an unanswered take may have got, as the keeper stops: takes the lease
    /// again (granted anew to the same holder: this learns the fence) and releases it. The
    /// runner starts the bot's next keeper only once this one has ended.
    private func settle() async {
        guard let lease = try? await take() else { return }
        await release(lease)
    }

    /// Asks the server for the lease. The request runs to its answer in a task of its own,
    /// even when the keeper is stopped meanwhile: cancelled, it would be abandoned after
    /// the server may have granted it, and nothing would give that holding up.
    private func take() async throws(IMClientError) -> BotLease {
        let (client, holder, ttl) = (client, holder, settings.ttl)
        let answer = await Task { () -> Result<BotLease, IMClientError> in
            do throws(IMClientError) {
                return .success(try await client.takeLease(holder: holder, ttl: ttl))
            } catch {
                return .failure(error)
            }
        }.value
        return try answer.get()
    }

    /// Runs the bot under `lease` until the holding ends; releases it unless it was lost.
    private func hold(_ lease: BotLease, since asked: Duration) async -> Ending {
        logger.notice("bot \(bot): took its lease (fence \(lease.fence)); running it here")
        // Counted before it is noted, so whoever sees the holding sees its count.
        metrics.leaseTaken(bot: bot)
        note(.here(fence: lease.fence))
        let lostBell = Doorbell()
        let ending = await withTaskGroup(of: Ending.self) { group in
            group.addTask { [work] in .botEnded(await work(lease, { lostBell.ring() })) }
            group.addTask { [self] in await renewing(lease, since: asked) }
            group.addTask {
                await lostBell.wait()
                return Task.isCancelled ? .cancelled : .lost
            }
            let first = await group.next() ?? .cancelled
            // The bot stops (and writes what it can) before the lease is given up.
            group.cancelAll()
            await group.waitForAll()
            return first
        }
        metrics.leaseEnded(bot: bot, lost: ending == .lost || ending == .expired)
        note(.unknown)
        if ending == .lost {
            logger.warning("bot \(bot): another runner took it over (fence \(lease.fence) is over); stopped it here")
            return ending
        }
        if ending == .expired {
            // Released too: the server counts its end from a later moment than this runner.
            logger.error("bot \(bot): its lease could not be renewed before it ended; stopped it here")
        }
        await release(lease)
        return ending
    }

    /// Gives the holding `lease` up, so another runner may take the bot at once (harmless
    /// when it is over: the server ends only the holding its fence names). In a task of its
    /// own, not cancelled with this one; awaited, so bounded by the request timeout.
    private func release(_ lease: BotLease) async {
        let client = client
        let failure = await Task { () -> String? in
            do throws(IMClientError) {
                try await client.releaseLease(fence: lease.fence)
                return nil
            } catch {
                return error.message
            }
        }.value
        if let failure {
            logger.warning("bot \(bot): its lease could not be given up (\(failure)); another runner takes the bot when it expires")
        }
    }

    /// Records what the keeper learnt; true when it differs from what it knew.
    @discardableResult
    private func note(_ new: Holding) -> Bool {
        state.withLock { holding in
            defer { holding = new }
            return holding != new
        }
    }

    /// The holder a `lease_held` refusal names: the server says "another runner
    /// (runner-a/1f3e) holds this bot for 8200 ms more …" (`BotJournalRoutes.lease`); a
    /// message of another shape is kept whole.
    static func holder(in message: String) -> String {
        let opening = "another runner ("
        guard message.hasPrefix(opening), let closing = message.range(of: ") holds ", options: .backwards) else {
            return message
        }
        let start = message.index(message.startIndex, offsetBy: opening.count)
        return closing.lowerBound >= start ? String(message[start..<closing.lowerBound]) : message
    }

    /// Renews the holding every third of the ttl; returns when it is lost, when no
    /// renewal got through before its end, or when cancelled.
    private func renewing(_ lease: BotLease, since asked: Duration) async -> Ending {
        var expiry = asked + settings.ttl
        var next = asked + settings.ttl / 3
        while true {
            do {
                try await time.sleep(until: min(next, expiry))
            } catch {
                return .cancelled
            }
            let sent = time.elapsed
            if sent >= expiry { return .expired }
            switch await renewal(lease.fence, before: expiry) {
            case .renewed:
                expiry = sent + settings.ttl
                next = sent + settings.ttl / 3
            case .lost:
                return .lost
            case .failed(let message):
                if Task.isCancelled { return .cancelled }
                logger.warning("bot \(bot): its lease could not be renewed: \(message); trying again")
                next = time.elapsed + settings.ttl / 10
            }
        }
    }

    private enum Renewal: Sendable {
        case renewed
        case lost
        case failed(String)
    }

    /// One renewal, given up at `expiry` (the bot must stop then whatever the server says).
    private func renewal(_ fence: Int64, before expiry: Duration) async -> Renewal {
        await withTaskGroup(of: Renewal.self) { [self] group in
            group.addTask { [client, holder, settings] in
                do throws(IMClientError) {
                    _ = try await client.renewLease(holder: holder, fence: fence, ttl: settings.ttl)
                    return .renewed
                } catch where error.api?.reason == "lease_lost" {
                    return .lost
                } catch {
                    return .failed(error.message)
                }
            }
            group.addTask { [time] in
                try? await time.sleep(until: expiry)
                return .failed("no answer before the lease's end")
            }
            let first = await group.next() ?? .failed("cancelled")
            group.cancelAll()
            return first
        }
    }
}
