import Foundation
import IMProtocol

/// A flood of direct messages to a bot from many accounts at once.
extension AbuseScenario {
    /// Each account sends `floodMessages` as fast as it can. Each account's send budget
    /// (a burst of 30, then 10 a second) must hold; every message the server accepted must
    /// reach the bot's feed.
    func directMessageFlood(_ context: Context, into report: inout Report) async throws {
        let port = context.port
        let bot = try await context.server.createAccount("soak-floodbot", password: "flood bot password", bot: true)
        let start = try await bot.expect("GET", "/v1/events").decode(EventBatch.self).cursor
        // Registrations are budgeted per address (10 at once): ten accounts per address.
        let sources = Loopback.clientAddresses((floodAccounts + 9) / 10, from: 300)
        let tokens = await Threads.map(floodAccounts, width: 16) { index -> String? in
            let body = Array(#"{"username":"flood-\#(index)","password":"flood password \#(index)"}"#.utf8)
            let answer = RawSocket.exchange(from: sources[index / 10], port: port, RawSocket.request("POST", "/v1/register", body: body))
            return answer.flatMap { try? JSONDecoder().decode(AuthResponse.self, from: Data($0.body)).token }
        }
        let accounts = tokens.compactMap { $0 }
        report.check(accounts.count == floodAccounts, "flood: only \(accounts.count) of \(floodAccounts) accounts registered")

        let messages = floodMessages
        let floodStart = ContinuousClock.now
        let (tallies, measured) = try await context.probe.measure {
            await Threads.map(accounts.count, width: 64) { index -> FloodTally in
                var tally = FloodTally()
                let began = Date()
                for message in 0..<messages {
                    let body = Array(#"{"text":"flood \#(index)-\#(message)","client_msg_id":"flood-\#(index)-\#(message)"}"#.utf8)
                    let answer = RawSocket.exchange(from: sources[index % sources.count], port: port, RawSocket.request(
                        "POST", "/v1/conversations/user:soak-floodbot/messages",
                        headers: ["Authorization: Bearer \(accounts[index])"], body: body))
                    switch answer?.status {
                    case 201?: tally.accepted += 1
                    case 429? where answer?.header("Retry-After") != nil && answer?.summary == "429 RATE_LIMITED": tally.limited += 1
                    default: tally.other.append(answer?.summary ?? "no answer")
                    }
                }
                tally.seconds = Date().timeIntervalSince(began)
                return tally
            }
        }
        let accepted = tallies.map(\.accepted).reduce(0, +)
        let limited = tallies.map(\.limited).reduce(0, +)
        let other = tallies.flatMap(\.other)
        report.figure("DM flood", String(format: "%d accounts × %d messages to one bot in %.1f s: %d accepted, %d answered 429, %d other",
                                         accounts.count, messages, (ContinuousClock.now - floodStart).seconds, accepted, limited, other.count))
        report.check(other.isEmpty, "flood: answers other than 201 and 429 RATE_LIMITED with Retry-After: \(Array(Set(other)).prefix(5))")
        let overBudget = tallies.filter { Double($0.accepted) > 30 + 10 * $0.seconds + 1 }.count
        report.check(overBudget == 0, "flood: \(overBudget) accounts sent more than their budget (30 + 10/s)")
        checkLatency("DM flood", measured, context, into: &report)

        // The bot must see every accepted message.
        let drained = await readFeed(bot, from: start, pollTimeout: 2) { seen in seen >= accepted }
        report.figure("DM flood: the bot's feed", "\(drained.messageIDs.count) of \(accepted) accepted messages, in \(drained.polls) polls")
        report.check(drained.messageIDs.count == accepted, "flood: the bot's feed delivered \(drained.messageIDs.count) of \(accepted) accepted messages")
    }

    struct FloodTally: Sendable {
        var accepted = 0
        var limited = 0
        var other: [String] = []
        var seconds = 0.0
    }
}
