#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a component's time comes from: a monotonic clock to measure intervals and to
/// sleep on, and the wall clock for timestamps people read.
///
/// Everything that waits, expires or rates is given one of these instead of reading a
/// global clock, so tests drive time with ``ManualTime`` and never sleep.
public protocol TimeSource: Sendable {
    /// Monotonic time since an arbitrary origin; never goes back.
    var elapsed: Duration { get }
    /// The wall clock: milliseconds since 1970-01-01T00:00:00Z.
    var wallMilliseconds: Int64 { get }
    /// Suspends until ``elapsed`` reaches `deadline`; returns at once when it already has.
    /// Throws `CancellationError` when the calling task is cancelled.
    func sleep(until deadline: Duration) async throws
}

extension TimeSource {
    /// Suspends for `duration` of this source's time.
    public func sleep(for duration: Duration) async throws {
        try await sleep(until: elapsed + duration)
    }

    /// ``elapsed`` in seconds, for code that keeps time as `Double`.
    public var seconds: Double { elapsed.seconds }

    /// A `Clock` over this source, for APIs that take one.
    public var clock: TimeSourceClock { TimeSourceClock(source: self) }
}

extension Duration {
    /// This duration in seconds.
    public var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// A duration of `seconds` (negative and non-finite values become zero).
    public static func seconds(clamping seconds: Double) -> Duration {
        guard seconds.isFinite, seconds > 0 else { return .zero }
        // Beyond a century nothing in this program waits; clamp instead of trapping.
        return .nanoseconds(Int64(min(seconds, 3_153_600_000) * 1e9))
    }
}

/// The real clocks: `ContinuousClock` (which keeps counting while the machine sleeps) and
/// `CLOCK_REALTIME`.
public struct SystemTime: TimeSource {
    private static let origin = ContinuousClock.now

    public init() {}

    public var elapsed: Duration { Self.origin.duration(to: .now) }

    public var wallMilliseconds: Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    public func sleep(until deadline: Duration) async throws {
        try await ContinuousClock().sleep(until: Self.origin.advanced(by: deadline), tolerance: nil)
    }
}

extension TimeSource where Self == SystemTime {
    /// The real clocks.
    public static var system: SystemTime { SystemTime() }
}

/// A `Clock` whose instants are a ``TimeSource``'s elapsed time.
public struct TimeSourceClock: Clock {
    /// A point on the source's monotonic time line.
    public struct Instant: InstantProtocol, Sendable {
        public var offset: Duration

        public init(offset: Duration) { self.offset = offset }

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    public let source: any TimeSource

    public init(source: any TimeSource) { self.source = source }

    public var now: Instant { Instant(offset: source.elapsed) }
    public var minimumResolution: Duration { .nanoseconds(1) }

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try await source.sleep(until: deadline.offset)
    }
}
