import IMProtocol

#if canImport(Glibc)
import Glibc
#endif

/// Clock times and dates for the screens, in one fixed UTC offset (the local one when
/// the client starts; tests pass 0 so snapshots do not depend on where they run).
public struct TimeFormat: Sendable, Equatable {
    /// Seconds east of UTC.
    public var utcOffset: Int

    /// A format for `utcOffset`.
    public init(utcOffset: Int) {
        self.utcOffset = utcOffset
    }

    /// The system's current offset from UTC.
    public static var local: TimeFormat {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        return TimeFormat(utcOffset: Int(parts.tm_gmtoff))
    }

    /// `14:03`.
    public func clock(_ time: Timestamp) -> String { String(local(time).dropFirst(11).prefix(5)) }

    /// `14:03:07`.
    public func clockWithSeconds(_ time: Timestamp) -> String { String(local(time).dropFirst(11).prefix(8)) }

    /// `2026-11-29`.
    public func day(_ time: Timestamp) -> String { String(local(time).prefix(10)) }

    /// `2026-11-29T14:03:07.000Z` shifted by the offset (the `Z` is then not true, only the digits are used).
    private func local(_ time: Timestamp) -> String {
        Timestamp(milliseconds: time.milliseconds + Int64(utcOffset) * 1000).rfc3339
    }
}
