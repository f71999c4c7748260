import Foundation
import IMClient
import Synchronization
import IMProtocol
import TestSupport
import Testing

/// The live event stream against scripted answers: edge cases a real server cannot be
/// made to produce on demand.
@Suite("Event stream")
struct EventStreamTests {
    private struct Harness {
        let transport: ScriptedTransport
        let store: MemoryCursorStore
        let sleeper: SleepRecorder
        let stream: EventStream

        /// `secondsPerReading`: how far the fake monotonic clock moves each time it is read.
        init(
            _ answers: [ScriptedTransport.Answer], cursor: String? = nil, store: MemoryCursorStore? = nil,
            secondsPerReading: Int64 = 15
        ) {
            transport = ScriptedTransport(answers)
            self.store = store ?? MemoryCursorStore(cursor: cursor)
            sleeper = SleepRecorder()
            let client = IMClient(serverURL: Fixtures.server, transport: transport, token: "sbt_t")
            let readings = Mutex<Int64>(0)
            let clock: MonotonicTime = {
                .seconds(readings.withLock { value in
                    value += secondsPerReading
                    return value
                })
            }
            stream = client.events(
                cursor: self.store,
                options: EventStreamOptions(pollTimeout: 25, sleep: sleeper.sleep, random: { 1 }, monotonic: clock))
        }

        /// The next `count` elements, described (fails instead of hanging).
        func take(_ count: Int, from iterator: EventStream.Iterator) async throws -> [String] {
            try await withHangGuard("taking \(count) elements") {
                var iterator = iterator
                var taken: [String] = []
                for _ in 0..<count { taken.append(describe(try await iterator.next())) }
                return taken
            }
        }

        /// The cursor each poll sent ("-" for none).
        var polledCursors: [String] { transport.requests.map { queryItems($0)["cursor"] ?? "-" } }
    }

    @Test func theFirstPollWithoutASavedCursorStartsFreshAndKeepsTheCursor() async throws {
        let harness = Harness([.respond(Fixtures.batch([], cursor: "c1"))])
        let iterator = harness.stream.makeAsyncIterator()

        let consumer = Task { try await harness.take(1, from: iterator) }
        try await harness.transport.waitForRequests(2)

        #expect(harness.polledCursors == ["-", "c1"])
        #expect(harness.store.cursor == "c1")
        let first = harness.transport.requests[1]
        #expect(path(first) == "/v1/events")
        #expect(queryItems(first)["timeout"] == "25")
        #expect(queryItems(first)["limit"] == "100")
        #expect(first.header("Authorization") == "Bearer sbt_t")
        #expect(first.timeout > .seconds(25))
        consumer.cancel()
        #expect(try await withHangGuard("cancelled consumer") { try await consumer.value } == ["end"])
    }

    @Test func aBatchCursorIsSavedOnlyWhenTheConsumerAsksForMoreAfterItsLastEvent() async throws {
        let harness = Harness(
            [.respond(Fixtures.batch([Fixtures.event(1), Fixtures.event(2)], cursor: "c2"))], cursor: "c0")
        let iterator = harness.stream.makeAsyncIterator()

        #expect(try await harness.take(1, from: iterator) == ["event 1"])
        #expect(harness.store.cursor == "c0")
        #expect(try await harness.take(1, from: iterator) == ["event 2"])
        #expect(harness.store.cursor == "c0")
        let consumer = Task { try await harness.take(1, from: iterator) }
        try await harness.transport.waitForRequests(2)

        #expect(harness.store.cursor == "c2")
        #expect(harness.polledCursors == ["c0", "c2"])
        consumer.cancel()
        _ = try await withHangGuard("cancelled consumer") { try await consumer.value }
    }

    @Test func anEventOfANewerServerThatCannotBeReadIsHandedOverAsUnreadableAndPassed() async throws {
        // The second event's message has a type this version does not know.
        var answer = Fixtures.batch([Fixtures.event(1), Fixtures.event(2), Fixtures.event(3)], cursor: "c3")
        var text = String(decoding: answer.body, as: UTF8.self)
        let chat = #""type":"chat""#
        let second = try #require(text.ranges(of: chat).dropFirst().first)
        text.replaceSubrange(second, with: #""type":"poll""#)
        answer.body = Data(text.utf8)
        let harness = Harness([.respond(answer)], cursor: "c0")
        let iterator = harness.stream.makeAsyncIterator()

        let taken = try await harness.take(3, from: iterator)

        #expect(taken.count == 3)
        #expect(taken.first == "event 1")
        // The reason names the field; the rest of its wording is Foundation's.
        #expect(taken.dropFirst().first?.hasPrefix("unreadable 2 message: message.type: ") == true, "\(taken)")
        #expect(taken.last == "event 3")
        let consumer = Task { try await harness.take(1, from: iterator) }
        try await harness.transport.waitForRequests(2)
        #expect(harness.store.cursor == "c3")
        #expect(harness.polledCursors == ["c0", "c3"])
        consumer.cancel()
        _ = try await withHangGuard("cancelled consumer") { try await consumer.value }
    }

    @Test func eventsAtOrBelowTheLastHandedOverPositionAreDropped() async throws {
        let harness = Harness(
            [
                .respond(Fixtures.batch([Fixtures.event(1), Fixtures.event(2), Fixtures.event(2)], cursor: "c2")),
                .respond(Fixtures.batch([Fixtures.event(2), Fixtures.event(1), Fixtures.event(3)], cursor: "c3")),
                .respond(Fixtures.batch([Fixtures.event(3)], cursor: "c3")),
                .respond(Fixtures.batch([Fixtures.event(4)], cursor: "c4")),
            ], cursor: "c0")

        let taken = try await harness.take(4, from: harness.stream.makeAsyncIterator())

        #expect(taken == ["event 1", "event 2", "event 3", "event 4"])
        #expect(harness.polledCursors == ["c0", "c2", "c3", "c3"])
        // The all-repeat batch handed nothing over, so its cursor could be kept at once.
        #expect(harness.store.cursor == "c3")
    }

    @Test func reconnectsBackOffExponentiallyAndResetAfterASuccess() async throws {
        let harness = Harness(
            [
                .fail(Fixtures.refused), .fail(Fixtures.lost), .fail(Fixtures.lost), .fail(Fixtures.refused),
                .respond(Fixtures.batch([Fixtures.event(5)], cursor: "c5")),
                .fail(Fixtures.lost),
                .respond(Fixtures.batch([Fixtures.event(6)], cursor: "c6")),
            ], cursor: "c4")

        let taken = try await harness.take(9, from: harness.stream.makeAsyncIterator())

        #expect(taken == [
            "disconnected 250ms", "disconnected 500ms", "disconnected 1000ms", "disconnected 2000ms", "reconnected",
            "event 5", "disconnected 250ms", "reconnected", "event 6",
        ])
        #expect(harness.sleeper.recorded == [
            .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .milliseconds(250),
        ])
        #expect(harness.polledCursors == ["c4", "c4", "c4", "c4", "c4", "c5", "c5"])
    }

    @Test func emptyAnswersThatComeAtOnceArePacedWithBackoff() async throws {
        let empty = ScriptedTransport.Answer.respond(Fixtures.batch([], cursor: "c0"))
        let harness = Harness(
            [empty, empty, empty, empty, .respond(Fixtures.batch([Fixtures.event(1)], cursor: "c1")), empty, empty],
            cursor: "c0", secondsPerReading: 0)
        let iterator = harness.stream.makeAsyncIterator()

        #expect(try await harness.take(1, from: iterator) == ["event 1"])
        #expect(harness.sleeper.recorded == [.milliseconds(250), .milliseconds(500), .seconds(1)])
        let consumer = Task { try await harness.take(1, from: iterator) }
        try await harness.transport.waitForRequests(8)
        consumer.cancel()
        _ = try await withHangGuard("cancelled consumer") { try await consumer.value }

        // The event reset the count: one more early answer passes, the next waits the base.
        #expect(harness.sleeper.recorded == [.milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(250)])
    }

    @Test func emptyAnswersAfterAFullParkAreNotPaced() async throws {
        let empty = ScriptedTransport.Answer.respond(Fixtures.batch([], cursor: "c0"))
        let harness = Harness(
            [empty, empty, empty, .respond(Fixtures.batch([Fixtures.event(1)], cursor: "c1"))], cursor: "c0",
            secondsPerReading: 15)

        #expect(try await harness.take(1, from: harness.stream.makeAsyncIterator()) == ["event 1"])
        #expect(harness.sleeper.recorded.isEmpty)
    }

    @Test func aDisconnectedElementNamesTheCause() async throws {
        let harness = Harness([.fail(Fixtures.refused)], cursor: "c0")
        var iterator = harness.stream.makeAsyncIterator()

        let element = try await iterator.next()

        guard case .disconnected(let error, let retryIn) = element else {
            Issue.record("expected disconnected, got \(describe(element))")
            return
        }
        #expect(error.message == "server not reachable at http://127.0.0.1:8080 (connection refused)")
        #expect(retryIn == .milliseconds(250))
    }

    @Test func rateLimitedPollWaitsForRetryAfter() async throws {
        let harness = Harness(
            [
                .respond(Fixtures.error(.rateLimited, "too many requests: try again in 4 s", retryAfter: 4)),
                .respond(Fixtures.batch([Fixtures.event(1)], cursor: "c1")),
            ], cursor: "c0")

        let taken = try await harness.take(1, from: harness.stream.makeAsyncIterator())

        #expect(taken == ["event 1"])
        #expect(harness.sleeper.recorded == [.seconds(4)])
        #expect(harness.polledCursors == ["c0", "c0"])
    }

    @Test func unavailableServerIsRetriedNoSoonerThanItAsks() async throws {
        let harness = Harness([.respond(Fixtures.error(.unavailable, "shutting down", retryAfter: 5))], cursor: "c0")

        let taken = try await harness.take(1, from: harness.stream.makeAsyncIterator())

        #expect(taken == ["disconnected 5000ms"])
    }

    @Test func anExpiredCursorHandsOverResyncThenContinuesFromAFreshCursor() async throws {
        let harness = Harness(
            [
                .respond(Fixtures.batch([Fixtures.event(9)], cursor: "c9")),
                .respond(Fixtures.error(.cursorExpired, "this cursor does not belong to this login")),
                .respond(Fixtures.batch([], cursor: "fresh")),
                // Another database numbers its feed anew: position 1 is not a repeat.
                .respond(Fixtures.batch([Fixtures.event(1)], cursor: "c1")),
            ], cursor: "c0")
        let iterator = harness.stream.makeAsyncIterator()

        #expect(try await harness.take(2, from: iterator) == ["event 9", "resync"])
        #expect(harness.polledCursors == ["c0", "c9", "-"])
        #expect(harness.store.cursor == "c9")  // kept until the consumer has re-synced
        #expect(try await harness.take(1, from: iterator) == ["event 1"])
        #expect(harness.polledCursors == ["c0", "c9", "-", "fresh"])
        #expect(harness.store.cursor == "fresh")
    }

    @Test func theResyncElementCarriesTheServersReason() async throws {
        let harness = Harness(
            [.respond(Fixtures.error(.cursorExpired, "events after this cursor are no longer kept")),
             .respond(Fixtures.batch([], cursor: "fresh"))], cursor: "old")
        var iterator = harness.stream.makeAsyncIterator()

        let element = try await iterator.next()

        #expect(element == .resyncNeeded(reason: "events after this cursor are no longer kept"))
    }

    @Test func aDamagedCursorIsTreatedLikeAnExpiredOne() async throws {
        let harness = Harness(
            [.respond(Fixtures.error(.invalidRequest, "'x' is not a cursor", field: "cursor")),
             .respond(Fixtures.batch([], cursor: "fresh"))], cursor: "x")

        #expect(try await harness.take(1, from: harness.stream.makeAsyncIterator()) == ["resync"])
        #expect(harness.polledCursors == ["x", "-"])
    }

    @Test func aReplacedPollEndsTheStreamWithAnotherClientIsUsingThisLogin() async throws {
        let harness = Harness(
            [.respond(Fixtures.error(.conflict, "another poll with the same login replaced this one", reason: "poll_replaced"))],
            cursor: "c0")
        var iterator = harness.stream.makeAsyncIterator()

        let error = await #expect(throws: IMClientError.self) { try await iterator.next() }

        #expect(error?.code == .api(.conflict))
        #expect(error?.message == "another client is using this login")
        #expect(try await iterator.next() == nil)
        #expect(harness.transport.requests.count == 1)
    }

    @Test func aKickedOutEventIsHandedOverAndThenEndsTheStream() async throws {
        let reason = "this login was ended because the account logged in elsewhere (device 'cli')"
        let harness = Harness(
            [.respond(Fixtures.batch(
                [Fixtures.event(1), Fixtures.event(1, type: .kickedOut, reason: reason), Fixtures.event(2)],
                cursor: "c1"))], cursor: "c0")
        var iterator = harness.stream.makeAsyncIterator()

        #expect(try await harness.take(2, from: iterator) == ["event 1", "kicked_out 1"])
        let error = await #expect(throws: IMClientError.self) { try await iterator.next() }

        #expect(error?.code == .kickedOut)
        #expect(error?.message == "logged in elsewhere: \(reason)")
        #expect(try await iterator.next() == nil)
        #expect(harness.transport.requests.count == 1)
        #expect(harness.store.cursor == "c1")
    }

    @Test func anEndedLoginEndsTheStreamWithTheError() async throws {
        let harness = Harness(
            [.respond(Fixtures.error(.unauthorized, "this login has ended: log in again", reason: "logged_out"))],
            cursor: "c0")
        var iterator = harness.stream.makeAsyncIterator()

        let error = await #expect(throws: IMClientError.self) { try await iterator.next() }

        #expect(error?.code == .api(.unauthorized))
        #expect(error?.message == "this login has ended: log in again")
        #expect(try await iterator.next() == nil)
    }

    @Test func theEndOfALoginThisClientAlreadyReplacedDoesNotEndTheStream() async throws {
        let holder = Mutex<IMClient?>(nil)
        let polls = Mutex(0)
        let transport = FakeTransport { request in
            let number = polls.withLock { count -> Int in
                count += 1
                return count
            }
            switch number {
            case 1:
                // The client logs in again on the same device while this poll is parked.
                holder.withLock { $0 }?.use(token: "sbt_new1")
                return Fixtures.batch([Fixtures.event(0, type: .kickedOut, reason: "logged in elsewhere")], cursor: "c0")
            case 2:
                // The client changes its password while this poll is parked.
                holder.withLock { $0 }?.use(token: "sbt_new2")
                return Fixtures.error(.unauthorized, "this login has ended: log in again", reason: "logged_out")
            default:
                return Fixtures.batch([Fixtures.event(1)], cursor: "c1")
            }
        }
        let client = IMClient(serverURL: Fixtures.server, transport: transport, token: "sbt_old")
        holder.withLock { $0 = client }
        var iterator = client.events(cursor: MemoryCursorStore(cursor: "c0")).makeAsyncIterator()

        let element = try await iterator.next()

        #expect(describe(element) == "event 1")
        #expect(transport.requests.map { $0.header("Authorization") } == [
            "Bearer sbt_old", "Bearer sbt_new1", "Bearer sbt_new2",
        ])
    }

    @Test func cancellingTheConsumerCancelsTheParkedPoll() async throws {
        let harness = Harness([], cursor: "c0")
        let iterator = harness.stream.makeAsyncIterator()

        let consumer = Task { try await harness.take(1, from: iterator) }
        try await harness.transport.waitForRequests(1)
        consumer.cancel()

        #expect(try await withHangGuard("cancelled consumer") { try await consumer.value } == ["end"])
        #expect(harness.transport.requests.count == 1)
        #expect(harness.sleeper.recorded.isEmpty)
    }

    @Test func cancellingDuringABackoffWaitEndsTheStream() async throws {
        let transport = ScriptedTransport([.fail(Fixtures.lost)])
        let client = IMClient(serverURL: Fixtures.server, transport: transport, token: "t")
        let sleeper = SleepRecorder(cancelAfter: 0)
        var iterator = client.events(
            cursor: MemoryCursorStore(cursor: "c0"), options: EventStreamOptions(sleep: sleeper.sleep)
        ).makeAsyncIterator()

        #expect(describe(try await iterator.next()).hasPrefix("disconnected"))
        #expect(try await iterator.next() == nil)
        #expect(transport.requests.count == 1)
    }

    @Test func aCursorThatCannotBeSavedEndsTheStream() async throws {
        let transport = ScriptedTransport([.respond(Fixtures.batch([Fixtures.event(1)], cursor: "c1"))])
        let client = IMClient(serverURL: Fixtures.server, transport: transport, token: "t")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cursor-\(UUID().uuidString)").path
        try Data().write(to: URL(fileURLWithPath: folder))  // a file where the folder should be
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var iterator = client.events(cursor: FileCursorStore(path: folder + "/cursor")).makeAsyncIterator()

        #expect(try await iterator.next()?.event?.position == 1)
        let error = await #expect(throws: IMClientError.self) { try await iterator.next() }

        #expect(error?.code == .localStorage)
        #expect(try await iterator.next() == nil)
    }

    @Test func withoutALoginTheStreamEndsAtOnce() async throws {
        let transport = ScriptedTransport([])
        var iterator = IMClient(serverURL: Fixtures.server, transport: transport)
            .events(cursor: MemoryCursorStore()).makeAsyncIterator()

        let error = await #expect(throws: IMClientError.self) { try await iterator.next() }

        #expect(error?.code == .notLoggedIn)
        #expect(transport.requests.isEmpty)
    }
}

/// A short text for an element, so sequences compare at a glance.
func describe(_ element: LiveEvent?) -> String {
    switch element {
    case nil: "end"
    case .event(let event)?: event.type == .message ? "event \(event.position)" : "\(event.type) \(event.position)"
    case .resyncNeeded?: "resync"
    case .unreadable(let unreadable)?: "unreadable \(unreadable.position) \(unreadable.type): \(unreadable.reason)"
    case .disconnected(_, let retryIn)?:
        "disconnected \(retryIn.components.seconds * 1000 + retryIn.components.attoseconds / 1_000_000_000_000_000)ms"
    case .reconnected?: "reconnected"
    }
}
