import Foundation

extension BotRunner {
    /// Loads the bot files again and applies what passes: new rules to running bots of
    /// the same account, a restart for a changed account, a start for a new file, a stop
    /// for a file that is gone (not merely broken). Returns the problems that kept old
    /// rules in place.
    func reload(handles: inout [String: RunningBot], _ shared: Shared) async -> [String] {
        let (definitions, loadErrors) = BotLoader.loadDirectory(configuration.botsDirectory,
                                                                environment: configuration.environment)
        var problems = loadErrors.errors.map(\.description)
        var good: [BotDefinition] = []
        for definition in definitions {
            let failures = await Self.failedExamples([definition])
            if failures.isEmpty { good.append(definition) } else { problems += failures }
        }
        for name in handles.keys where !botNames.contains(name) { handles[name] = nil }
        for definition in good {
            if let current = handles[definition.name]?.supervisor.definition {
                if current.version == definition.version { continue }
                if current.account.username == definition.account.username {
                    handles[definition.name]?.supervisor.replace(definition)
                    noteRules(definition)
                    logger.notice("bot \(definition.name): new rules applied", [("version", definition.version)])
                    continue
                }
                await stop(definition.name, handles: &handles)
            }
            do {
                start(try await makeBot(definition, shared), handles: &handles)
                logger.notice("bot \(definition.name): started")
            } catch {
                problems.append("bot \(definition.name) cannot start: \(error)")
            }
        }
        // Bots whose file is gone (not merely broken) stop.
        let present = Set(definitions.map(\.name))
        for (name, handle) in handles where !present.contains(name)
            && !FileManager.default.fileExists(atPath: handle.supervisor.definition.file) {
            logger.notice("bot \(name): its file is gone; stopping it")
            await stop(name, handles: &handles)
        }
        for problem in problems { logger.error("reload: \(problem) (old rules kept)") }
        return problems
    }
}
