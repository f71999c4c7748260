import Foundation
import IMProtocol

extension BotRunner {
    /// Loads the bot files again and applies what passes: new rules to running bots of
    /// the same account, a restart for a changed account, a start for a new file, a stop
    /// for a file that is gone (not merely broken). Returns the problems that kept old
    /// rules in place (or a bot from starting); ``health`` holds them too.
    func reload(handles: inout [String: RunningBot], _ shared: Shared) async -> [String] {
        let catalog = await BotCatalog.read(folder: configuration.botsDirectory,
                                            environment: configuration.environment).runningExamples()
        for name in handles.keys where !botNames.contains(name) { handles[name] = nil }
        var running: [String: BotDefinition] = [:]
        for handle in handles.values { running[handle.bot.definition.file] = handle.bot.definition }
        noteProblems(of: catalog, running: running, reload: true)
        var problems = catalog.problems
        shared.groups.note(catalog.bots)
        // The paths of bots kept on their old rules (a broken file) stay declared too.
        let kept = catalog.files.filter { $0.bot == nil }.compactMap { running[$0.path] }
        routes.declare(Self.webhookPaths(of: catalog.bots + kept))
        for file in catalog.files {
            guard let definition = file.bot else { continue }
            if let current = handles[definition.name]?.bot.definition {
                if current.version == definition.version { continue }
                // A bot that gains or loses its webhooks starts again: its services are made
                // when it starts.
                // So does one whose platform changed (another homeserver, user or credential).
                if current.account.username == definition.account.username,
                   current.webhooks.isEmpty == definition.webhooks.isEmpty, current.platform == definition.platform {
                    handles[definition.name]?.bot.replace(definition)
                    logger.notice("bot \(definition.name): new rules applied", [("version", definition.version)])
                    continue
                }
                await stop(definition.name, handles: &handles)
            }
            do {
                start(try await makeBot(definition, shared), handles: &handles)
                logger.notice("bot \(definition.name): started")
            } catch {
                let problem = "bot \(definition.name) cannot start: \(error)"
                problems.append(problem)
                health.failed(file, errors: [problem], running: nil, reload: true,
                              at: Timestamp(milliseconds: configuration.time.wallMilliseconds))
                logger.error(problem)
            }
        }
        // Bots whose file is gone (not merely broken) stop.
        let present = Set(catalog.bots.map(\.name))
        for (name, handle) in handles where !present.contains(name)
            && !FileManager.default.fileExists(atPath: handle.bot.definition.file) {
            logger.notice("bot \(name): its file is gone; stopping it")
            await stop(name, handles: &handles)
        }
        return problems
    }
}
