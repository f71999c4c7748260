import IMProtocol

/// The checks themselves, on made-up histories and feeds with one fault each: every
/// fault must be caught, or the other scenarios could pass while losing messages.
struct SelfCheckScenario: Scenario {
    static let name = "self-check"
    static let summary = "the checks catch a lost, doubled, unanswered or out-of-order message, a feed gap and an alert shown wrong"

    let work = ""
    let testdata: String

    init(options: Options) throws {
        testdata = options.testdata
    }

    static func message(_ seq: Int64, _ id: String?, in conversation: Int64 = 1) -> Message {
        Message(id: MessageID(rawValue: seq + conversation * 1000), conversationID: ConversationID(rawValue: conversation), seq: seq,
                sender: "a", senderID: UserID(rawValue: 1), text: id ?? "system", clientMessageID: id,
                createdAt: Timestamp(milliseconds: 0))
    }

    func run(_ report: inout Report) async throws {
        let stored = [Self.message(1, "a"), Self.message(2, "b"), Self.message(3, "c")]
        let answered = Dictionary(uniqueKeysWithValues: stored.map { ($0.clientMessageID ?? "", $0) })
        let clean = HistoryAudit(histories: ["c": stored], answered: answered)
        report.check(clean.lost.isEmpty && clean.duplicated.isEmpty && clean.unanswered.isEmpty && clean.seqHoles.isEmpty,
                     "a sound history was reported broken")

        let lost = HistoryAudit(histories: ["c": [stored[0], stored[2]]], answered: answered)
        report.check(lost.lost == ["b"], "a lost message was not caught (\(lost.lost))")
        report.check(!lost.seqHoles.isEmpty, "a seq hole was not caught")

        var again = stored[1]
        again.id = MessageID(rawValue: 99)
        again.seq = 4
        let doubled = HistoryAudit(histories: ["c": stored + [again]], answered: answered)
        report.check(doubled.duplicated == ["b"], "a message stored twice was not caught (\(doubled.duplicated))")

        let unanswered = HistoryAudit(histories: ["c": stored + [Self.message(4, "d")]], answered: answered)
        report.check(unanswered.unanswered == ["d"], "a stored message never answered was not caught")

        var gap = FeedLog()
        gap.seqs[ConversationID(rawValue: 1)] = [1, 3]
        var disorder = FeedLog()
        disorder.seqs[ConversationID(rawValue: 1)] = [1, 3, 2]
        let problems = HistoryAudit.feedProblems(histories: ["c": stored], members: ["c": [0, 1]], logs: [gap, disorder])
        report.check(problems.gaps == 1, "a feed gap was not caught (\(problems.gaps))")
        report.check(problems.disorders == 1, "a feed out of order was not caught (\(problems.disorders))")
        try checkAlertAudit(&report, testdata: testdata)
        report.figure("faults planted", "lost, seq hole, doubled, unanswered, feed gap, feed disorder; an incident without "
            + "its message or with two, a state change lost, doubled, misplaced or out of order, a message not "
            + "resolved: \(report.passed ? "all caught" : "some missed")")
    }
}
