import IMProtocol
@testable import IMServer

/// Text a client puts in a URL or a config file: feed cursors, conversation addresses,
/// times, durations and listen addresses. Each parser is checked against its printer.
///
/// Invariants: whatever parses prints as text that parses to the same value (durations
/// to the microsecond).
struct CursorAddressTarget: FuzzTarget {
    init() {}

    func run(_ input: [UInt8]) {
        guard let text = input[...].utf8Text else { return }
        if let cursor = FeedCursor(text) {
            require(FeedCursor(cursor.text) == cursor, "cursor '\(text)' prints as '\(cursor.text)', which reads differently")
        }
        if let address = ConversationAddress(text) {
            require(ConversationAddress(address.description) == address,
                    "address '\(text)' prints as '\(address)', which reads differently")
        }
        if let time = Timestamp(rfc3339: text) {
            require(Timestamp(rfc3339: time.rfc3339) == time, "time '\(text)' prints as '\(time.rfc3339)', which reads differently")
        }
        if let duration = ConfigDuration(text) {
            require(duration.seconds >= 0 && duration.seconds <= ConfigDuration.maximumSeconds,
                    "duration '\(text)' is \(duration.seconds) s")
            // Printed to the microsecond.
            let again = ConfigDuration(duration.description)?.seconds ?? -1
            require(abs(again - duration.seconds) <= 5e-7 + duration.seconds * 1e-12,
                    "duration '\(text)' prints as '\(duration)', which reads as \(again) s")
        }
        if let listen = ListenAddress(text) {
            require((0...65535).contains(listen.port), "listen address '\(text)' has port \(listen.port)")
            require(ListenAddress(listen.description) == listen,
                    "listen address '\(text)' prints as '\(listen)', which reads differently")
        }
        // Validation answers an error, never traps.
        _ = try? Validate.username(text)
        _ = try? Validate.conversationName(text)
        _ = try? Validate.text(text, field: "text", length: Limits.messageTextLength, multiline: true)
    }
}
