import IMProtocol

/// Turns what an incident tracker decided (post, edit, reply) into outbox messages of
/// one book, each with a client id that is the same whenever the same step is taken
/// again (a delivery processed again after a crash sends nothing twice).
struct IncidentMessages {
    let bot: String
    let book: String
    let conversation: ConversationAddress
    let rule: String

    /// The messages of `effects`; `scope` names the step (`w12`: delivery 12).
    func pending(_ effects: [IncidentEffect], scope: String) -> [PendingMessage] {
        effects.enumerated().map { index, effect in
            switch effect {
            case .post(let groupKey, let clientMessageID, let text):
                // The same for every step of one incident: posting again returns the first.
                return message(groupKey, .post, text, IdempotencyKey.derived(from: "b:\(bot):\(book)", clientMessageID))
            case .edit(let groupKey, _, let text):
                return message(groupKey, .edit, text, id(scope, groupKey, "e\(index)"))
            case .reply(let groupKey, let to, let text):
                var reply = message(groupKey, .reply, text, id(scope, groupKey, "r\(index)"))
                reply.replyTo = to
                return reply
            }
        }
    }

    private func message(_ groupKey: String, _ part: IncidentRef.Part, _ text: String, _ id: String) -> PendingMessage {
        PendingMessage(incident: IncidentRef(book: book, groupKey: groupKey, part: part), to: conversation, text: text,
                       clientMessageID: id, rule: rule)
    }

    private func id(_ scope: String, _ groupKey: String, _ part: String) -> String {
        IdempotencyKey.derived(from: "b:\(bot):\(scope):\(book):\(groupKey)", part)
    }
}
