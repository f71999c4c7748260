import Foundation
@testable import IMBots
import IMClient
import IMProtocol
import Lifecycle
import Logging
import Synchronization
import TestSupport
import Testing

/// The transport to the real server, which can be cut (every request fails as if the
/// server were unreachable), which counts the lease renewals that got through, and which
/// can hold back the answer of a take the server gave.
final class SwitchableTransport: HTTPTransport {
    private let inner: any HTTPTransport
    private let state = Mutex((down: false, renewals: 0, holdNextTake: false, heldTakes: 0, loseNextTake: false))
    private let heldAnswer = Doorbell()

    init(_ inner: any HTTPTransport = TestClient.sharedTransport) { self.inner = inner }

    var down: Bool {
        get { state.withLock { $0.down } }
        set { state.withLock { $0.down = newValue } }
    }

    /// Renewals (lease requests naming a fence) the server answered 200.
    var renewals: Int { state.withLock { $0.renewals } }

    /// Takes (lease requests naming no fence) the server answered whose answer was held.
    var heldTakes: Int { state.withLock { $0.heldTakes } }

    /// Holds the answer of the next take, once the server has given it, until
    /// ``answerHeldTake()``; cancelling the asking task meanwhile abandons the request
    /// with `cancelled`, as the real transport does, although the server has answered.
    func holdNextTake() { state.withLock { $0.holdNextTake = true } }

    /// Lets the held answer go to its caller (unless it was abandoned).
    func answerHeldTake() { heldAnswer.ring() }

    /// Loses the answer of the next take once the server has given it: the caller gets a
    /// timeout, the request sent.
    func loseNextTake() { state.withLock { $0.loseNextTake = true } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        if down { throw TransportError(code: .cannotConnect, message: "cut by the test", requestNotSent: true) }
        let response = try await inner.send(request)
        guard request.url.hasSuffix("/v1/me/lease"), request.method == "POST", let body = request.body else {
            return response
        }
        if String(decoding: body, as: UTF8.self).contains("\"fence\"") {
            if response.status == 200 { state.withLock { $0.renewals += 1 } }
            return response
        }
        let (hold, lose) = state.withLock { state in
            defer { (state.holdNextTake, state.loseNextTake) = (false, false) }
            if state.holdNextTake { state.heldTakes += 1 }
            return (state.holdNextTake, state.loseNextTake)
        }
        if lose { throw TransportError(code: .timedOut, message: "the answer was lost by the test") }
        if hold {
            await heldAnswer.wait()  // returns when rung, or when the asking task is cancelled
            if Task.isCancelled {
                throw TransportError(code: .cancelled, message: "request cancelled after it was answered")
            }
        }
        return response
    }
}

/// What a keeper's bot did: the fences it started under, and which ended.
final class WorkLog: Sendable {
    private let state = Mutex((started: [Int64](), stopped: [Int64]()))

    var started: [Int64] { state.withLock { $0.started } }
    var stopped: [Int64] { state.withLock { $0.stopped } }

    /// A bot that runs until cancelled.
    var work: @Sendable (BotLease, @escaping @Sendable () -> Void) async -> BotLeaseKeeper.Outcome {
        { [self] lease, _ in
            state.withLock { $0.started.append(lease.fence) }
            await Doorbell().wait()  // returns when cancelled
            state.withLock { $0.stopped.append(lease.fence) }
            return .failedToStart
        }
    }
}

/// The lease keeper on the runner's ManualTime, against a real server on a ManualTime of
/// its own (so that the test says when each side's time passes).
@Suite(.serialized, .timeLimit(.minutes(2))) struct LeaseKeeperTests {
    static let settings = LeaseSettings(runnerID: "a", ttl: .seconds(3), retry: .seconds(1))

    struct Keeper {
        let keeper: BotLeaseKeeper
        let log: WorkLog
        let transport: SwitchableTransport
        let metrics: RunnerMetrics
        let task: Task<Void, any Error>

        /// The bot's lease series as `/metrics` shows them: held, taken, lost (nil: none).
        var lease: [String?] {
            let text = metrics.render()
            return ["held", "taken_total", "lost_total"].map { name in
                let prefix = "switchboard_bot_lease_\(name){bot=\"leased\"} "
                return text.split(separator: "\n").first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
            }
        }
    }

    static func keeper(_ server: TestServer, holder: String, time: ManualTime,
                       transport: SwitchableTransport = SwitchableTransport()) -> Keeper {
        let client = IMClient(serverURL: server.baseURL, transport: transport,
                              configuration: IMClient.Configuration(sendRetry: .never, sleep: { try await time.sleep(for: $0) }))
        let log = WorkLog()
        let metrics = RunnerMetrics()
        let keeper = BotLeaseKeeper(
            bot: "leased", holder: holder, settings: settings, client: client, time: time,
            logger: Logger(label: "keeper", level: .error, sink: LogWatch()), metrics: metrics,
            logIn: { (try? await client.login(username: "leased", password: "bot password")) != nil },
            work: log.work)
        return Keeper(keeper: keeper, log: log, transport: transport, metrics: metrics,
                      task: Task { try await keeper.run() })
    }

    @Test func aKeeperTakesTheLeaseRenewsItAndStopsItsBotWhenAnotherRunnerTookIt() async throws {
        let serverTime = ManualTime()
        try await withServer(time: serverTime) { server in
            try await server.createAccount("leased", password: "bot password", bot: true)
            let runnerTime = ManualTime()
            let a = Self.keeper(server, holder: "a/1", time: runnerTime)
            defer { a.task.cancel() }
            try await eventually("the bot runs under fence 1") { a.log.started == [1] && a.keeper.fence == 1 }

            // A third of the ttl later it renews, and the server's holding moves on: 2 s
            // later on the server's clock, it ends 3 s after that, not 1 s.
            serverTime.setWall(milliseconds: serverTime.wallMilliseconds + 2_000)
            await runnerTime.waitForSleepers(1)
            runnerTime.advance(by: .seconds(1))
            try await eventually("a renewal") { a.transport.renewals == 1 }
            serverTime.setWall(milliseconds: serverTime.wallMilliseconds + 1_500)
            let probe = try await server.client.login("leased", password: "bot password")
            expectHeld(try await probe.send("POST", "/v1/me/lease", json: LeaseRequest(holder: "b", ttlMilliseconds: 3000)))

            // Runner A is cut off; on the server its lease ends and B takes the bot.
            a.transport.down = true
            serverTime.setWall(milliseconds: serverTime.wallMilliseconds + 3_000)
            let b = Self.keeper(server, holder: "b/1", time: ManualTime())
            defer { b.task.cancel() }
            try await eventually("B runs the bot under fence 2") { b.log.started == [2] }
            // A's next renewal, once it reaches the server again, is refused: its bot stops.
            a.transport.down = false
            await runnerTime.waitForSleepers(1)
            runnerTime.advance(by: .seconds(1))
            try await eventually("A's bot stopped") { a.log.stopped == [1] && a.keeper.fence == nil }
            // A keeps trying, and finds the bot held.
            await runnerTime.waitForSleepers(1)
            runnerTime.advance(by: Self.settings.retry)
            await runnerTime.waitForSleepers(1)
            #expect(a.log.started == [1])
            #expect(b.log.stopped.isEmpty)
        }
    }

    @Test func aBotStopsWhenItsLeaseEndsUnrenewedAndStartsAgainWhenTheServerIsBack() async throws {
        let serverTime = ManualTime()
        try await withServer(time: serverTime) { server in
            try await server.createAccount("leased", password: "bot password", bot: true)
            let runnerTime = ManualTime()
            let a = Self.keeper(server, holder: "a/1", time: runnerTime)
            defer { a.task.cancel() }
            try await eventually("the bot runs") { a.log.started == [1] }
            a.transport.down = true
            // Renewals fail; at the lease's end (3 s after it was asked for) the bot stops,
            // though nobody else took it.
            var stepped = Duration.zero
            while a.log.stopped.isEmpty {
                guard stepped <= Self.settings.ttl + .seconds(1) else { break }
                await runnerTime.waitForSleepers(1)
                runnerTime.advance(by: .milliseconds(100))
                stepped += .milliseconds(100)
            }
            try await eventually("the bot stopped") { a.log.stopped == [1] && a.keeper.holding == .unknown }
            #expect(a.lease == ["0", "1", "1"], "an expired holding counts as lost")
            #expect(stepped >= Self.settings.ttl - .milliseconds(100) && stepped <= Self.settings.ttl + .milliseconds(100),
                    "stopped after \(stepped)")
            // The server is back: the next try takes the lease afresh.
            a.transport.down = false
            serverTime.setWall(milliseconds: serverTime.wallMilliseconds + 3_000)
            await runnerTime.waitForSleepers(1)
            runnerTime.advance(by: Self.settings.retry)
            try await eventually("the bot runs again under a new fence") {
                a.keeper.holding == .here(fence: 2) && a.log.started == [1, 2]
            }
            #expect(a.lease == ["1", "2", "1"])
        }
    }

    @Test func theHoldingAndItsCountsFollowTheLeaseTakenLostAndTakenAgain() async throws {
        let serverTime = ManualTime()
        try await withServer(time: serverTime) { server in
            try await server.createAccount("leased", password: "bot password", bot: true)
            let timeA = ManualTime()
            let a = Self.keeper(server, holder: "a/1", time: timeA)
            defer { a.task.cancel() }
            try await eventually("A holds the bot") { a.keeper.holding == .here(fence: 1) }
            #expect(a.lease == ["1", "1", "0"])

            // B finds it held and names the holder; its series are there, at 0.
            let timeB = ManualTime()
            let b = Self.keeper(server, holder: "b/1", time: timeB)
            defer { b.task.cancel() }
            try await eventually("B sees A's holding") { b.keeper.holding == .elsewhere(holder: "a/1") }
            #expect(b.lease == ["0", "0", "0"])

            // A's holding ends on the server unrenewed; B takes the bot at its next try.
            serverTime.setWall(milliseconds: serverTime.wallMilliseconds + 3_000)
            await timeB.waitForSleepers(1)
            timeB.advance(by: Self.settings.retry)
            try await eventually("B holds the bot") { b.keeper.holding == .here(fence: 2) }
            #expect(b.lease == ["1", "1", "0"])

            // A's next renewal is refused: lost, and its next try names B.
            await timeA.waitForSleepers(1)
            timeA.advance(by: .seconds(1))
            try await eventually("A lost the bot") { a.log.stopped == [1] && a.keeper.holding == .unknown }
            #expect(a.lease == ["0", "1", "1"])
            await timeA.waitForSleepers(1)
            timeA.advance(by: Self.settings.retry)
            try await eventually("A sees B's holding") { a.keeper.holding == .elsewhere(holder: "b/1") }

            // B stops and releases it (no loss; its gauge goes with its keeper); A takes it
            // again at its next try.
            b.task.cancel()
            _ = await b.task.result
            #expect(b.keeper.holding == .unknown)
            #expect(b.lease == [nil, "1", "0"])
            await timeA.waitForSleepers(1)
            timeA.advance(by: Self.settings.retry)
            try await eventually("A runs the bot again") { a.keeper.holding == .here(fence: 3) && a.log.started == [1, 3] }
            #expect(a.lease == ["1", "2", "1"])
        }
    }

    @Test func theHolderIsTakenFromTheRefusalAndAnUnknownMessageIsKeptWhole() {
        #expect(BotLeaseKeeper.holder(in: "another runner (runner-a/1f3e) holds this bot for 2 ms more") == "runner-a/1f3e")
        #expect(BotLeaseKeeper.holder(in: "another runner (a (b)) holds this bot for 2 ms more") == "a (b)")
        #expect(BotLeaseKeeper.holder(in: "held by runner-a") == "held by runner-a")
        #expect(BotLeaseKeeper.holder(in: "another runner (x") == "another runner (x")
    }

    @Test func aStoppedKeeperStopsItsBotAndReleasesTheLease() async throws {
        try await withServer { server in
            try await server.createAccount("leased", password: "bot password", bot: true)
            let a = Self.keeper(server, holder: "a/1", time: ManualTime())
            try await eventually("the bot runs") { a.log.started == [1] }
            a.task.cancel()
            _ = await a.task.result
            #expect(a.log.stopped == [1])
            // Released: another runner takes it at once.
            let probe = try await server.client.login("leased", password: "bot password")
            let taken = try await probe.send("POST", "/v1/me/lease", json: LeaseRequest(holder: "b", ttlMilliseconds: 3000))
            #expect(taken.status == 200, "\(taken.text)")
        }
    }

    /// Whether another runner could take the bot now (the probe gives the lease back).
    static func isFree(_ server: TestServer) async throws -> Bool {
        let probe = try await server.client.login("leased", password: "bot password")
        let answer = try await probe.send("POST", "/v1/me/lease", json: LeaseRequest(holder: "probe", ttlMilliseconds: 3000))
        guard answer.status == 200 else {
            expectHeld(answer)
            return false
        }
        let lease = try answer.decode(BotLease.self)
        #expect(try await probe.send("DELETE", "/v1/me/lease?fence=\(lease.fence)").status == 204)
        return true
    }

    @Test func aTakeTheServerGrantedAsTheKeeperStoppedIsGivenUp() async throws {
        try await withServer { server in
            try await server.createAccount("leased", password: "bot password", bot: true)
            let transport = SwitchableTransport()
            transport.holdNextTake()
            let a = Self.keeper(server, holder: "a/1", time: ManualTime(), transport: transport)
            // The server granted the take; the runner stops (SIGTERM) before its answer is read.
            try await eventually("the take was answered") { transport.heldTakes == 1 }
            a.task.cancel()
            transport.answerHeldTake()
            _ = await a.task.result
            #expect(a.log.started.isEmpty)
            #expect(a.keeper.holding == .unknown)
            #expect(try await Self.isFree(server), "the holding the take got is released: another runner need not wait")
        }
    }

    @Test func aTakeWhoseAnswerWasLostIsGivenUpWhenTheKeeperStops() async throws {
        try await withServer { server in
            try await server.createAccount("leased", password: "bot password", bot: true)
            let transport = SwitchableTransport()
            transport.loseNextTake()
            let time = ManualTime()
            let a = Self.keeper(server, holder: "a/1", time: time, transport: transport)
            // The server granted the take, its answer timed out: the keeper waits to try again.
            await time.waitForSleepers(1)
            #expect(a.keeper.holding == .unknown && a.log.started.isEmpty)
            a.task.cancel()
            _ = await a.task.result
            #expect(try await Self.isFree(server), "what the lost take got is released")
        }
    }

    @Test func aHoldingLetGoUnrenewedAndTheTakeAfterItAreGivenUpWhenTheRunnerStops() async throws {
        let serverTime = ManualTime()
        try await withServer(time: serverTime) { server in
            try await server.createAccount("leased", password: "bot password", bot: true)
            let runnerTime = ManualTime()
            let transport = SwitchableTransport()
            let a = Self.keeper(server, holder: "a/1", time: runnerTime, transport: transport)
            defer { a.task.cancel() }
            try await eventually("the bot runs under fence 1") { a.log.started == [1] }
            // The renewal wakes only after the lease's end (a loaded machine): the keeper
            // stops the bot. On the server's clock the holding still lasts; it is given up.
            await runnerTime.waitForSleepers(1)
            runnerTime.advance(by: Self.settings.ttl + .seconds(1))
            try await eventually("the bot stopped") { a.log.stopped == [1] && a.keeper.holding == .unknown }
            await runnerTime.waitForSleepers(1)
            #expect(try await Self.isFree(server), "a holding let go unrenewed is released")
            #expect(a.lease == ["0", "1", "1"])

            // At its next try it takes the lease again; the runner stops while the server's
            // grant is on its way back.
            transport.holdNextTake()
            runnerTime.advance(by: Self.settings.retry)
            try await eventually("the take was answered") { transport.heldTakes == 1 }
            a.task.cancel()
            transport.answerHeldTake()
            _ = await a.task.result
            #expect(a.log.started == [1])
            #expect(try await Self.isFree(server), "the holding the last take got is released")
        }
    }

    @Test func aJournalWriteUnderAnOldFenceReportsTheLossAndThrows() async throws {
        try await withServer { server in
            let (bot, _) = try await server.createAccount("leased", password: "bot password", bot: true)
            let client = IMClient(serverURL: server.baseURL, transport: TestClient.sharedTransport, token: bot.token)
            let first = try await client.takeLease(holder: "a", ttl: .seconds(3))
            try await client.releaseLease(fence: first.fence)
            let second = try await client.takeLease(holder: "b", ttl: .seconds(3))
            let lost = Mutex(0)
            let old = ServerJournalStore(client: client, bot: "leased", fence: first.fence, lost: { lost.withLock { $0 += 1 } })
            await #expect(throws: RunnerError.self) {
                try await old.append([JournalRecord(sequence: 1, change: .cursor("c1"))])
            }
            #expect(lost.withLock { $0 } == 1)
            let current = ServerJournalStore(client: client, bot: "leased", fence: second.fence, lost: {})
            try await current.append([JournalRecord(sequence: 1, change: .cursor("c2"))])
            let contents = try await current.load()
            #expect(contents.records == [JournalRecord(sequence: 1, change: .cursor("c2"))])
            #expect(contents.warnings.isEmpty)
            await current.release()
            await #expect(throws: RunnerError.self) {
                try await current.append([JournalRecord(sequence: 2, change: .cursor("c3"))])
            }
        }
    }
}

extension LeaseKeeperTests {
    /// Issue 25: the server hands a journal out in pages; a runner taking a bot over reads
    /// every page (here more records than one page holds).
    @Test func aJournalOfManyRecordsLoadsWholeFromItsPages() async throws {
        try await withServer { server in
            let (bot, _) = try await server.createAccount("paged", password: "bot password", bot: true)
            let client = IMClient(serverURL: server.baseURL, transport: TestClient.sharedTransport, token: bot.token)
            let lease = try await client.takeLease(holder: "a", ttl: .seconds(30))
            let store = ServerJournalStore(client: client, bot: "paged", fence: lease.fence, lost: {})
            let records = (1...UInt64(Limits.journalPageRecords.upperBound + 50)).map {
                JournalRecord(sequence: $0, change: .cursor("c\($0)"))
            }
            try await store.append(records)
            let firstPage = try await client.journal()
            #expect(firstPage.records.count == Limits.journalPageRecords.upperBound && firstPage.nextAfter != nil)
            let contents = try await store.load()
            #expect(contents.records == records && contents.warnings.isEmpty)
        }
    }
}

func expectHeld(_ answer: TestClient.Answer, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
    #expect(answer.status == 409 && answer.text.contains("lease_held"), "\(answer.text)", sourceLocation: sourceLocation)
}
