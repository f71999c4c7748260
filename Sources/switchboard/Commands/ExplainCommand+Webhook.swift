import Foundation
import IMBots
import IMProtocol

extension ExplainCommand {
    /// `switchboard explain --webhook PATH --payload FILE`: what the webhook rules make of
    /// one body.
    func explainWebhook(path: String, payload: String) async throws -> Int32 {
        let body: Data
        if payload == "-" {
            body = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            guard let data = FileManager.default.contents(atPath: payload) else {
                throw UsageError(message: "--payload \(payload) cannot be read")
            }
            body = data
        }
        let definition = try await findBot(servingPath: path)
        let now = time ?? .now()
        let explanation: WebhookExplanation
        do {
            explanation = try await WebhookExplanation.explain(body, path: path, bot: definition, at: now)
        } catch {
            throw ConfigurationError(error.description)
        }
        printOutput("bot '\(definition.name)' (\(definition.file)), a webhook on \(path) "
                    + "(\(explanation.format.rawValue)) at \(now.rfc3339)")
        printOutput("")
        for rule in explanation.rules {
            printOutput(rule.description)
            for line in rule.details { printOutput("    " + line) }
        }
        if !explanation.dedupe.isEmpty {
            printOutput("")
            for line in explanation.dedupe { printOutput("dedupe: " + line) }
        }
        printOutput("")
        guard !explanation.effects.isEmpty else {
            printOutput("no rule fires: the bridge would answer 200 {\"status\":\"unmatched\"} and do nothing")
            return ExitCode.ok
        }
        printOutput("dry run, nothing is sent: what the bridge would do with it, as the first notification of its "
                    + "alert group")
        for effect in explanation.effects { printOutput("  " + effect) }
        return ExitCode.ok
    }
}
