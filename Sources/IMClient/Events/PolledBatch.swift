import IMProtocol

/// An event of the feed that this version cannot read: a newer server may send a message
/// type, conversation kind or role this client does not know. Its place in the feed is
/// known, so the stream hands it over (as `LiveEvent.unreadable`) and moves past it
/// instead of polling the same batch again forever.
public struct UnreadableEvent: Sendable, Equatable {
    /// Its position in the feed.
    public var position: Int64
    /// Its `type` as the server wrote it.
    public var type: String
    /// Why it could not be read.
    public var reason: String

    public init(position: Int64, type: String, reason: String) {
        self.position = position
        self.type = type
        self.reason = reason
    }
}

/// The answer to one poll, read event by event: an event that does not decode becomes
/// an `UnreadableEvent` (when at least its position and type can be read) instead of
/// making the whole answer unreadable.
struct PolledBatch: Decodable {
    enum Item: Sendable {
        case event(Event)
        case unreadable(UnreadableEvent)

        var position: Int64 {
            switch self {
            case .event(let event): event.position
            case .unreadable(let unreadable): unreadable.position
            }
        }

        /// What the stream hands over for it.
        var liveEvent: LiveEvent {
            switch self {
            case .event(let event): .event(event)
            case .unreadable(let unreadable): .unreadable(unreadable)
            }
        }
    }

    var items: [Item]
    var cursor: String

    /// The fields every event has, in every version.
    private struct Header: Decodable {
        var position: Int64
        var type: String
    }

    private enum Key: String, CodingKey { case events, cursor }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        cursor = try container.decode(String.self, forKey: .cursor)
        var list = try container.nestedUnkeyedContainer(forKey: .events)
        items = []
        while !list.isAtEnd {
            // A failed decode leaves the list where it was, so the header is read from the
            // same element.
            do {
                items.append(.event(try list.decode(Event.self)))
            } catch {
                let header = try list.decode(Header.self)
                items.append(.unreadable(UnreadableEvent(
                    position: header.position, type: header.type, reason: Self.describe(error))))
            }
        }
    }

    init(items: [Item], cursor: String) {
        self.items = items
        self.cursor = cursor
    }

    private static func describe(_ error: any Error) -> String {
        guard let decoding = error as? DecodingError else { return "\(error)" }
        switch decoding {
        case .dataCorrupted(let context), .typeMismatch(_, let context), .valueNotFound(_, let context),
            .keyNotFound(_, let context):
            // The path inside the event: without the leading `events` and the event's index.
            let path = context.codingPath.dropFirst(2).map { $0.intValue.map(String.init) ?? $0.stringValue }
                .joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        @unknown default:
            return "\(decoding)"
        }
    }
}
