import Foundation
import IMBots
import IMProtocol

/// The shipped moderator (`bots/moderator.yaml`) deciding a busy lobby: 1,000 members
/// posting everyday texts in `group:lobby`, one message in ten spam (disguised banned
/// words), one event in fifty a join; 10 messages a second of event time, so `rate`
/// counters fill and empty as in a live group. Each decision's counter hits are recorded
/// as the runner records them.
enum ModeratorMix {
    static let spam = [
        "FREE m0ney, DM me", "get fr33 m0n3y now", "crypto giveaway!!! click", "double your bitcoin today",
        "s c a m alert", "Ｆｒｅｅ ｍｏｎｅｙ", "ѕсаm inside", "frrreeee money",
    ]

    static func events(_ count: Int) -> [BotEvent] {
        var generator = SplitMix(seed: 7)
        let start: Int64 = 1_736_157_600_000
        return (0..<count).map { index in
            let at = Timestamp(milliseconds: start + Int64(index) * 100)
            let sender = "member\(generator.next() % 1000)"
            if generator.next() % 50 == 0 {
                var event = BotEvent.message(from: sender, text: "", in: .group("lobby"), position: Int64(index + 1), at: at)
                event.event.type = .memberJoined
                event.event.user = event.sender
                event.event.message = nil
                return event
            }
            let text = generator.next() % 10 == 0 ? spam[Int(generator.next() % UInt64(spam.count))]
                : EventMix.texts[Int(generator.next() % UInt64(EventMix.texts.count))]
            return BotEvent.message(from: sender, text: text, in: .group("lobby"), position: Int64(index + 1), at: at)
        }
    }

    /// Decides every event with the bot's counters, five passes; events/s in CPU time.
    static func measure(file: String, count: Int) {
        let bot: BotDefinition
        do {
            bot = try BotLoader.load(text: String(contentsOfFile: file, encoding: .utf8), file: file,
                                     directory: (file as NSString).deletingLastPathComponent, environment: [:])
        } catch {
            print("moderator: \(file) does not load: \(error)")
            return
        }
        let events = events(count)
        let engine = RuleEngine(bot: bot)
        var rates: [Double] = []
        var fired = 0
        for _ in 0..<5 {
            let windows = EventWindows()
            fired = 0
            let started = threadCPUSeconds()
            for event in events {
                var context = BotContext(definition: bot, now: event.event.at)
                context.windows = windows
                let decision = engine.decide(event, context: context)
                windows.record(decision.windowHits, at: event.event.at.milliseconds)
                fired += decision.firings.count
            }
            rates.append(Double(events.count) / (threadCPUSeconds() - started))
        }
        rates.sort()
        let median = rates[rates.count / 2]
        print("moderator (\(file)): \(bot.rules.count) rules, \(events.count) events, \(fired) firings per pass")
        print("  decisions/s (CPU time): median \(Int(median)), best \(Int(rates.last ?? 0)), worst \(Int(rates.first ?? 0))"
              + " (\(String(format: "%.2f", 1e6 / median)) µs per event)")
    }
}
