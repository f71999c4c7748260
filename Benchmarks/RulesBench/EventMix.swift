import IMBots
import IMProtocol

/// A deterministic stream of events: mostly chat messages of everyday length, some
/// commands, some member events, in direct conversations, groups and a room.
enum EventMix {
    static let texts = [
        "hi there, can someone help me with the printer on floor 3?",
        "hello", "thanks!", "ok", "lunch at 12?", "the VPN keeps dropping every few minutes since this morning",
        "Where is order #48213? It was due yesterday.", "refund please", "deploy of build 1234 failed again",
        "I paid 49.90 eur twice for the same invoice", "PROJ-1287 is blocked by the outage", "see you tomorrow",
        "can you reset my password", "free money!!! click here", "f r e e  m0ney for you", "meeting moved to 3pm",
        "is the coffee machine fixed?", "ETA 15 min", "version 2.14 is out", "call me at 0151 234567",
        "@bench please look at this", "who is on call this week?", "ticket-5512 still open",
        "https://status.example.com says all good", "Budget report attached, please review before Friday.",
        "I will be on holiday from Monday to Wednesday, Alice covers for me.", "asap please",
        "Könnten Sie mir bitte die Rechnung noch einmal schicken?", "👍", "room 4 is free now",
        "/cmd3 something broke", "/c7", "/cmd12 restart the build agent", "/help", "/cmd29@bench now",
        "/unknown command here", "/cmd0", "/cmd5 x y z",
    ]
    static let senders = ["alice", "bob", "carol", "dave", "erin", "frank", "mallory", "grace"]
    static let places: [ConversationAddress?] = [nil, nil, nil, .group("support"), .group("ops"), .group("dev"),
                                                 .room("lobby"), .group("random")]

    /// `count` events, the same every run.
    static func events(_ count: Int) -> [BotEvent] {
        var generator = SplitMix(seed: 42)
        let time = Timestamp(milliseconds: 1_736_157_600_000)
        return (0..<count).map { index in
            let sender = senders[Int(generator.next() % UInt64(senders.count))]
            let place = places[Int(generator.next() % UInt64(places.count))]
            if generator.next() % 10 == 0 {
                var event = BotEvent.message(from: sender, text: "", in: place ?? .group("support"),
                                             position: Int64(index + 1), at: time)
                event.event.type = [.memberJoined, .memberLeft, .read][Int(generator.next() % 3)]
                event.event.user = event.sender
                event.event.message = nil
                return event
            }
            let text = texts[Int(generator.next() % UInt64(texts.count))]
            return BotEvent.message(from: sender, text: text, in: place, position: Int64(index + 1), at: time)
        }
    }
}

/// A small, fast, seedable generator (SplitMix64).
struct SplitMix {
    var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
