import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs services together under one lifecycle and stops them in order.
///
/// Every service runs in a child task of one task group. The group stops when the task
/// running ``run()`` is cancelled, when one of the shutdown signals arrives, when
/// ``shutDown()`` is called, or when any service returns or throws. Stopping cancels the
/// services one at a time, **last first**, each after the one started after it has
/// returned: a bot runner listed after the server it talks to drains its queue while the
/// server still answers. ``run()`` returns when every service has, and rethrows the first
/// failure that started the stop.
public final class ServiceGroup: Sendable {
    private let services: [any Service]
    private let signals: [Int32]
    private let logger: Logger
    private let stopRequested = Latch()

    /// - Parameters:
    ///   - services: in start order; they stop in the reverse order.
    ///   - signals: signals that ask for a graceful stop (a second one exits at once); an
    ///     empty list (the default, for tests and embedding) watches none.
    public init(services: [any Service], signals: [Int32] = [], logger: Logger) {
        self.services = services
        self.signals = signals
        self.logger = logger
    }

    /// Asks the group to stop gracefully, as a signal does.
    public func shutDown() { stopRequested.open() }

    /// Runs every service until the group stops; see the type's description.
    public func run() async throws {
        let watcher = signals.isEmpty ? nil : ShutdownSignals(signals) { [logger, stopRequested] number in
            logger.notice("signal \(number): stopping gracefully (again to exit at once)")
            stopRequested.open()
        }
        defer { watcher?.cancel() }
        // A shutdown signal must not be lost between here and the services' start.
        await watcher?.armed()
        // The services run in a task of their own: cancelling the caller must not cancel
        // them all at once (structured cancellation would), but in order. The task is
        // awaited here, so it never outlives this call.
        let group = Task { try await runServices() }
        try await withTaskCancellationHandler {
            try await group.value
        } onCancel: { [stopRequested] in
            stopRequested.open()
        }
    }

    private enum Outcome: Sendable {
        case ended(index: Int, error: (any Error)?)
        case stopRequested
    }

    private func runServices() async throws {
        guard !services.isEmpty else { return }
        let stops = services.map { _ in Latch() }
        let firstFailure = Mutex<(any Error)?>(nil)
        await withTaskGroup(of: Outcome.self) { group in
            for (index, service) in services.enumerated() {
                let stop = stops[index]
                group.addTask { await Self.runUntilStopped(service, index: index, stop: stop) }
            }
            group.addTask { [stopRequested] in
                await stopRequested.wait()
                return .stopRequested
            }
            var running = Set(services.indices)
            var stopping = false
            func stopNext() {
                guard let last = running.max() else { return }
                logger.debug("stopping \(services[last].name)")
                stops[last].open()
            }
            while let outcome = await group.next() {
                switch outcome {
                case .stopRequested:
                    guard !stopping else { continue }
                    stopping = true
                    stopNext()
                case .ended(let index, let error):
                    running.remove(index)
                    if let error, !(error is CancellationError) {
                        logger.error("\(services[index].name) failed: \(error)")
                        firstFailure.withLock { $0 = $0 ?? error }
                    } else if !stopping {
                        logger.notice("\(services[index].name) ended; stopping the others")
                    }
                    if running.isEmpty {
                        stopRequested.open()
                        continue
                    }
                    if !stopping {
                        stopping = true
                        stopRequested.open()
                    }
                    stopNext()
                }
            }
        }
        if let error = firstFailure.withLock({ $0 }) { throw error }
    }

    /// Runs one service until it returns, or until `stop` opens, then cancels it and waits
    /// for it to drain.
    private static func runUntilStopped(_ service: any Service, index: Int, stop: Latch) async -> Outcome {
        await withTaskGroup(of: Outcome?.self) { inner in
            inner.addTask {
                do {
                    try await service.run()
                    return .ended(index: index, error: nil)
                } catch {
                    return .ended(index: index, error: error)
                }
            }
            inner.addTask {
                await stop.wait()
                return nil
            }
            let first = await inner.next() ?? nil
            inner.cancelAll()
            if let first { return first }
            // The stop opened: the service was cancelled above and drains now.
            while let next = await inner.next() {
                if let next { return next }
            }
            return .ended(index: index, error: nil)
        }
    }
}
