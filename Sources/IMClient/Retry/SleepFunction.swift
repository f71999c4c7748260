/// Waits for a duration; throws `CancellationError` when the task is cancelled.
///
/// Injected wherever the client waits (retries, reconnect backoff, `Retry-After`) so
/// tests can record the waits instead of sleeping.
public typealias SleepFunction = @Sendable (Duration) async throws -> Void

/// A source of random numbers in `0..<1`, injected for the jitter of backoff delays.
public typealias RandomSource = @Sendable () -> Double

/// The real clock's sleep.
public let systemSleep: SleepFunction = { duration in try await Task.sleep(for: duration) }

/// The system's random numbers.
public let systemRandom: RandomSource = { Double.random(in: 0..<1) }

/// Time elapsed since a fixed origin, never going backwards; injected by tests.
public typealias MonotonicTime = @Sendable () -> Duration

/// The system's monotonic clock.
public let systemMonotonicTime: MonotonicTime = { processOrigin.duration(to: .now) }

private let processOrigin = ContinuousClock.now
