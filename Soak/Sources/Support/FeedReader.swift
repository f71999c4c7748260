import Foundation
import IMClient
import IMProtocol

/// What one account's event feed delivered: the chat messages by conversation in the order
/// they came, after dropping repeats the way the API tells clients to (a position not
/// above the last one handled).
struct FeedLog: Sendable {
    /// Seqs of chat messages per conversation, in arrival order.
    var seqs: [ConversationID: [Int64]] = [:]
    var messageIDs: Set<MessageID> = []
    /// Events dropped as repeats (delivery is at least once).
    var repeats = 0
    /// Polls that failed to connect or lost their connection (the server was down).
    var lostPolls = 0
    var polls = 0
    /// Answers a reconnecting client must never get (409, 410, other 4xx, unreadable bodies).
    var wrongAnswers: [String] = []
}

/// Long-polls one account's feed from `cursor` until `enough` says it has all it needs
/// (it is asked after every answer with the number of chat messages seen), reconnecting
/// with the same cursor whenever the server goes away.
func readFeed(_ client: APIClient, from start: String, pollTimeout: Int = 2,
              enough: @Sendable (Int) async -> Bool) async -> FeedLog {
    var log = FeedLog()
    var cursor = start
    var last: Int64 = 0
    while true {
        if await enough(log.messageIDs.count) { return log }
        log.polls += 1
        let answer: APIClient.Answer
        do {
            answer = try await client.send("GET", "/v1/events?cursor=\(cursor)&timeout=\(pollTimeout)&limit=1000",
                                           timeout: .seconds(pollTimeout + 10))
        } catch {
            log.lostPolls += 1
            try? await Task.sleep(for: .milliseconds(50))
            continue
        }
        guard answer.status == 200 else {
            if answer.status >= 500 || answer.status == 429 {
                try? await Task.sleep(for: .milliseconds(100))
            } else {
                log.wrongAnswers.append(answer.summary)
                if log.wrongAnswers.count > 20 { return log }
            }
            continue
        }
        guard let batch = try? answer.decode(EventBatch.self) else {
            log.wrongAnswers.append("200 with an unreadable batch")
            continue
        }
        for event in batch.events {
            guard event.position > last else {
                log.repeats += 1
                continue
            }
            last = event.position
            if event.type == .message, let message = event.message, message.type == .chat {
                log.seqs[message.conversationID, default: []].append(message.seq)
                log.messageIDs.insert(message.id)
            }
        }
        cursor = batch.cursor
    }
}
