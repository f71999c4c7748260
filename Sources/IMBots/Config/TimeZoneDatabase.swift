import Foundation

/// Time zones by IANA name, from the system's zone database.
enum TimeZoneDatabase {
    /// The zone with this identifier; `UTC` and `GMT` always exist.
    static func zone(_ identifier: String) -> TimeZone? {
        TimeZone(identifier: identifier)
    }

    /// Every known identifier, for "did you mean" suggestions.
    static var identifiers: [String] { TimeZone.knownTimeZoneIdentifiers }
}
