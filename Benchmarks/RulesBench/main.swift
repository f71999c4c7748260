import Foundation
import IMBots
import IMProtocol

// Rule evaluation throughput: `RuleEngine.decide` over a fixed stream of events, on one
// core, timed in thread CPU time. Build with `swift build -c release --product RulesBench`;
// run as `RulesBench [EVENTS] [mixed|regex-only|moderator]` (default: 100000 events, every
// set; `moderator` reads bots/moderator.yaml, so run it from the repository).

let count = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 100_000
let events = EventMix.events(count)

/// CPU time of this thread: unlike wall time, it does not count time other processes
/// had the core, so runs on a busy machine stay comparable.
func threadCPUSeconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

func measure(_ name: String, _ text: String) {
    let bot: BotDefinition
    do {
        bot = try BotLoader.load(text: text, file: "\(name).yaml", directory: ".", environment: [:])
    } catch {
        print("\(name): the generated bot does not load:\n\(error)")
        return
    }
    let engine = RuleEngine(bot: bot)
    let context = BotContext(definition: bot, now: Timestamp(milliseconds: 1_736_157_600_000))
    var rates: [Double] = []
    var wallRates: [Double] = []
    var fired = 0
    let clock = ContinuousClock()
    for _ in 0..<5 {
        fired = 0
        let start = threadCPUSeconds()
        let wallStart = clock.now
        for event in events {
            fired += engine.decide(event, context: context).firings.count
        }
        rates.append(Double(events.count) / (threadCPUSeconds() - start))
        let wall = clock.now - wallStart
        wallRates.append(Double(events.count)
                         / (Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18))
    }
    rates.sort()
    wallRates.sort()
    let median = rates[rates.count / 2]
    print("\(name): \(bot.rules.count) rules, \(events.count) events, \(fired) firings per pass")
    print("  events/s (CPU time): median \(Int(median)), best \(Int(rates.last ?? 0)), worst \(Int(rates.first ?? 0))"
          + " (\(String(format: "%.2f", 1e6 / median)) µs per event)")
    print("  events/s (wall time): median \(Int(wallRates[wallRates.count / 2]))")
}

let only = CommandLine.arguments.dropFirst(2).first
if only == nil || only == "mixed" { measure("mixed", RuleSets.mixed) }
if only == nil || only == "regex-only" { measure("regex-only", RuleSets.regexOnly) }
if only == nil || only == "moderator" { ModeratorMix.measure(file: "bots/moderator.yaml", count: count) }

