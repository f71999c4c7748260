import IMProtocol

/// Stored histories checked against the sends the server answered: each answered send is
/// stored exactly once, as the message it was answered with, and each conversation's seqs
/// run 1, 2, 3, … without a hole.
struct HistoryAudit: Sendable {
    /// Answered sends whose message is not stored (or not as answered).
    var lost: [String] = []
    /// `client_msg_id`s stored more than once.
    var duplicated: [String] = []
    /// Chat messages stored whose send was never answered with success.
    var unanswered: [String] = []
    /// Conversations whose seqs are not 1…N.
    var seqHoles: [String] = []
    var stored = 0

    /// `histories` by address, each oldest first; `answered` maps each `client_msg_id` the
    /// server answered with success to the message it answered.
    init(histories: [String: [Message]], answered: [String: Message]) {
        var found: [String: [Message]] = [:]
        for (address, messages) in histories {
            let seqs = messages.map(\.seq)
            if seqs != (0..<seqs.count).map({ Int64($0 + 1) }) {
                seqHoles.append("\(address): \(seqs.count) messages, seqs \(seqs.first ?? 0)…\(seqs.last ?? 0)")
            }
            for message in messages where message.type == .chat {
                stored += 1
                guard let id = message.clientMessageID else { continue }
                found[id, default: []].append(message)
            }
        }
        for (id, copies) in found where copies.count > 1 { duplicated.append(id) }
        for (id, message) in answered {
            guard let copies = found[id], copies.contains(where: { $0.id == message.id && $0.text == message.text }) else {
                lost.append(id)
                continue
            }
        }
        for id in found.keys where answered[id] == nil { unanswered.append(id) }
        lost.sort()
        duplicated.sort()
        unanswered.sort()
    }

    /// Chat messages stored but missing from a member's feed (`gaps`), and feeds that
    /// delivered a conversation out of seq order (`disorders`). `members` names the
    /// readers (indexes into `logs`) of each address of `histories`.
    static func feedProblems(histories: [String: [Message]], members: [String: [Int]],
                             logs: [FeedLog]) -> (gaps: Int, disorders: Int) {
        var gaps = 0, disorders = 0
        for (address, messages) in histories {
            let chat = messages.filter { $0.type == .chat }
            guard let conversation = chat.first?.conversationID else { continue }
            let stored = Set(chat.map(\.seq))
            for reader in members[address] ?? [] {
                let delivered = logs[reader].seqs[conversation] ?? []
                if delivered != delivered.sorted() { disorders += 1 }
                gaps += stored.subtracting(delivered).count
            }
        }
        return (gaps, disorders)
    }

    /// The first few of a list, for a report.
    static func sample(_ ids: [String]) -> String {
        ids.prefix(5).joined(separator: ", ") + (ids.count > 5 ? ", …" : "")
    }
}
