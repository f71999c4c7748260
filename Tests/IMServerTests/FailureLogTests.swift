@testable import IMServer
import IMStore
import Logging
import Synchronization
import Testing

/// A store outage is two log lines, not one per refused request; internal errors are
/// one line each; a client's own errors none.
@Suite struct FailureLogTests {
    struct Fault: Error, CustomStringConvertible {
        var description: String { "connection refused" }
    }

    @Test func anOutageIsLoggedWhenItStartsAndWhenItEndsWithTheCountBetween() {
        let sink = MemoryLogSink()
        let seconds = Mutex(100.0)
        let log = FailureLog(logger: Logger(label: "server", sink: sink), monotonic: { seconds.withLock { $0 } })

        for index in 0..<1_000 {
            log.failed("POST /v1/conversations/\(index)/messages", route: "/v1/conversations/:address/messages",
                       error: Fault(), logged: .unavailable)
        }
        #expect(sink.lines.count == 1)
        #expect(sink.lines.first?.level == .error)
        #expect(sink.lines.first?.message.hasPrefix(
            "the store is out of reach; requests that need it are answered 503 until it is back (first: POST "
                + "/v1/conversations/0/messages: connection refused)") == true)

        seconds.withLock { $0 += 42 }
        log.answered()
        log.answered()
        #expect(sink.lines.count == 2)
        #expect(sink.lines.last?.level == .warning)
        #expect(sink.lines.last?.message == "the store answers again after 42 s; 1000 requests were refused meanwhile")
        #expect(log.refusedForStorage.load(ordering: .relaxed) == 1_000)

        // The next outage is told again.
        log.failed("GET /v1/events", route: "/v1/events", error: Fault(), logged: .unavailable)
        #expect(sink.lines.count == 3)
    }

    @Test func internalErrorsAreOneLineEachAndTheClientsOwnAreNotLogged() {
        let sink = MemoryLogSink()
        let log = FailureLog(logger: Logger(label: "server", sink: sink), monotonic: { 0 })
        log.failed("GET /v1/me", route: "/v1/me", error: Fault(), logged: .internalError)
        log.failed("GET /v1/me", route: "/v1/me", error: Fault(), logged: .internalError)
        log.failed("GET /v1/me", route: "/v1/me", error: Fault(), logged: .no)
        #expect(sink.lines.map(\.message) == ["GET /v1/me failed: connection refused", "GET /v1/me failed: connection refused"])
        log.answered()
        #expect(sink.lines.count == 2)
    }
}
