import Foundation
import IMProtocol

/// The alert audit's self-check: a made-up group conversation that shows one incident
/// right, and one fault planted in each copy of it.
extension SelfCheckScenario {
    /// A bot message of the conversation: seq, text, and the message it replies to.
    private static func alertMessage(_ seq: Int64, _ text: String, replyTo: Int64? = nil) -> Message {
        var message = message(seq, nil)
        message.sender = "soakalerts"
        message.text = text
        message.clientMessageID = nil
        message.replyTo = replyTo.map { MessageID(rawValue: $0 + 1000) }
        return message
    }

    func checkAlertAudit(_ report: inout Report, testdata: String) throws {
        let plan = try AlertPlan(webhooks: 6, instances: 3, testdata: testdata)
        let resolved = ["✅ RESOLVED: SoakAlert0", "0 firing · 3 resolved", "job=soak severity=critical"]
            + (0..<3).map { "✓ i0-\($0): soak alert \($0) of incident 0" }
        let living = Self.alertMessage(1, resolved.joined(separator: "\n"))
        let replies = plan.expectedReplies(0).enumerated().map { Self.alertMessage(Int64($0.offset) + 2, $0.element, replyTo: 1) }
        let sound = [living] + replies
        report.check(plan.problems(0, in: sound).isClean, "an incident shown right was reported broken")

        var swapped = replies
        swapped.swapAt(0, 1)
        for index in swapped.indices { swapped[index].seq = Int64(index) + 2 }
        var firing = living
        firing.text = firing.text.replacingOccurrences(of: "✅ RESOLVED", with: "🔥 FIRING")
        let faults: [(String, [Message], (AlertAudit) -> Bool)] = [
            ("no living message", [], { $0.missingMessages == 1 }),
            ("a living message posted twice", sound + [Self.alertMessage(20, living.text)], { $0.duplicateMessages == 1 }),
            ("a state change lost", sound.filter { $0.seq != 3 }, { $0.lost == 1 }),
            ("a state change replied twice", sound + [Self.alertMessage(21, replies[1].text, replyTo: 1)], { $0.duplicated == 1 }),
            ("a reply on another message", sound + [Self.alertMessage(22, replies[0].text, replyTo: 9)], { $0.stray == 1 }),
            ("replies out of order", [living] + swapped, { $0.outOfOrder >= 1 }),
            ("a message that never resolved", [firing] + replies, { $0.wrongFinalText == 1 }),
        ]
        for (name, messages, caught) in faults {
            report.check(caught(plan.problems(0, in: messages)), "the alert audit missed \(name)")
        }
    }
}
