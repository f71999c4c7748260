import Lifecycle
import Logging
import Testing

/// A service that records when it starts and stops, and can fail or end on request.
private struct ProbeService: Service {
    let name: String
    let log: Recorder<String>
    var drainsThrough: Latch? = nil
    var endsWhen: Latch? = nil
    var failsWith: (any Error)? = nil

    func run() async throws {
        log.add("start \(name)")
        if let failsWith { throw failsWith }
        if let endsWhen {
            await endsWhen.wait()
            if !Task.isCancelled {
                log.add("ended \(name)")
                return
            }
        } else {
            await Task.waitForCancellation()
        }
        log.add("draining \(name)")
        // Draining happens in a cancelled task, where waiting on a latch returns at once.
        if let drainsThrough { while !drainsThrough.isOpen { await Task.yield() } }
        log.add("stopped \(name)")
    }
}

private struct Boom: Error, Equatable {}

@Suite struct ServiceGroupTests {
    let logger = Logger(label: "test", sink: MemoryLogSink())

    private func waitUntil(_ log: Recorder<String>, contains line: String) async {
        while !log.values.contains(line) { await Task.yield() }
    }

    @Test func cancellingTheCallerStopsServicesLastFirstEachAfterTheNext() async throws {
        let log = Recorder<String>()
        let group = ServiceGroup(
            services: [ProbeService(name: "server", log: log), ProbeService(name: "runner", log: log)],
            logger: logger)
        let running = Task { try await group.run() }
        await waitUntil(log, contains: "start server")
        await waitUntil(log, contains: "start runner")
        running.cancel()
        try await running.value
        let stops = log.values.filter { !$0.hasPrefix("start") }
        #expect(stops == ["draining runner", "stopped runner", "draining server", "stopped server"])
    }

    @Test func anEarlierServiceKeepsRunningWhileALaterOneDrains() async throws {
        let log = Recorder<String>()
        let drain = Latch()
        let group = ServiceGroup(
            services: [ProbeService(name: "server", log: log),
                       ProbeService(name: "runner", log: log, drainsThrough: drain)],
            logger: logger)
        let running = Task { try await group.run() }
        await waitUntil(log, contains: "start runner")
        await waitUntil(log, contains: "start server")
        group.shutDown()
        await waitUntil(log, contains: "draining runner")
        #expect(!log.values.contains("draining server"))
        drain.open()
        try await running.value
        #expect(log.values.last == "stopped server")
    }

    @Test func aFailingServiceStopsTheOthersAndItsErrorIsRethrown() async {
        let log = Recorder<String>()
        let gate = Latch()
        let group = ServiceGroup(
            services: [ProbeService(name: "a", log: log), ProbeService(name: "b", log: log),
                       FunctionService("c") { await gate.wait(); throw Boom() }],
            logger: logger)
        let running = Task { try await group.run() }
        await waitUntil(log, contains: "start a")
        await waitUntil(log, contains: "start b")
        gate.open()
        await #expect(throws: Boom.self) { try await running.value }
        #expect(log.values.suffix(4) == ["draining b", "stopped b", "draining a", "stopped a"])
    }

    @Test func aServiceThatReturnsEndsTheGroup() async throws {
        let log = Recorder<String>()
        let end = Latch()
        let group = ServiceGroup(
            services: [ProbeService(name: "a", log: log), ProbeService(name: "b", log: log, endsWhen: end)],
            logger: logger)
        let running = Task { try await group.run() }
        await waitUntil(log, contains: "start a")
        await waitUntil(log, contains: "start b")
        end.open()
        try await running.value
        #expect(log.values.contains("ended b"))
        #expect(log.values.last == "stopped a")
    }

    @Test func anEmptyGroupReturnsAtOnce() async throws {
        try await ServiceGroup(services: [], logger: logger).run()
    }

    @Test func aLatchOpenedBeforeWaitingDoesNotBlock() async {
        let latch = Latch()
        latch.open()
        latch.open()
        await latch.wait()
        #expect(latch.isOpen)
    }
}

#if canImport(Glibc)
import Glibc
#endif

@Suite struct ShutdownSignalTests {
    @Test func aShutdownSignalStopsTheGroupGracefully() async throws {
        let log = Recorder<String>()
        let group = ServiceGroup(
            services: [ProbeService(name: "only", log: log)], signals: [SIGUSR2],
            logger: Logger(label: "test", sink: MemoryLogSink()))
        let running = Task { try await group.run() }
        while !log.values.contains("start only") { await Task.yield() }
        kill(getpid(), SIGUSR2)
        try await running.value
        #expect(log.values == ["start only", "draining only", "stopped only"])
    }
}
