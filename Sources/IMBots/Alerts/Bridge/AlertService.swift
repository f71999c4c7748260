import Lifecycle
import Logging

/// The alert bridge of one bot, as one more service of it: serves the bot's `webhooks:`
/// on the runner's listener (the inbox), processes what the inbox stored, and keeps the
/// time of held resolves and dead-man's switches on the runner's clock.
///
/// It follows reloads: paths that appear are served, paths that go stop being served,
/// and a changed secret or format applies to the next request.
final class AlertService: Service {
    let name: String
    let desk: AlertDesk
    private let parts: BotParts
    private let served = ServedRoutes()
    private let bell: Doorbell

    init(parts: BotParts, outbox: Outbox) {
        name = "alerts \(parts.name)"
        self.parts = parts
        let bell = Doorbell()
        self.bell = bell
        // A step a command took (a silence noted, a /refresh) may bring a deadline nearer.
        desk = AlertDesk(parts: parts, outbox: outbox, changed: { bell.ring() })
    }

    func run() async throws {
        parts.rules.onReplace { [bell] in bell.ring() }
        if parts.configuration.listen == nil {
            parts.logger.warning("bot \(parts.name) has webhooks, but the runner has no listener (runner.listen): "
                                 + "nothing can send them")
        }
        let inbox = WebhookInbox(parts: parts, routes: served) { [bell] in bell.ring() }
        defer {
            for path in served.paths { Self.unroute(path, parts.routes) }
        }
        await desk.start()
        var secrets: [String: String] = [:]
        while !Task.isCancelled {
            serve(inbox, secrets: &secrets)
            // Read before the wall clock: a clock that moves between the two reads makes the
            // wait end early (and the loop look again), never late.
            let started = parts.time.elapsed
            let processed = await desk.processInbox()
            let advanced = await desk.advance()
            await desk.reconcileDue()
            // Alerts that waited for room in the outbox are tried again in a second.
            var wait: Duration? = processed && advanced ? nil : .seconds(1)
            for deadline in [desk.nextDeadline, await desk.nextReconcile()].compactMap({ $0 }) {
                let due = Duration.milliseconds(max(0, deadline - parts.time.wallMilliseconds))
                wait = min(wait ?? due, due)
            }
            await sleep(until: wait.map { started + $0 })
        }
    }

    /// Until the inbox stores a delivery, the rules change, or the clock reaches
    /// `deadline` (on its monotonic line: a deadline set here, not where the sleeping task
    /// happens to start).
    private func sleep(until deadline: Duration?) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [bell] in await bell.wait() }
            if let deadline { group.addTask { [parts] in try? await parts.time.sleep(until: deadline) } }
            await group.next()
            group.cancelAll()
        }
    }

    /// Serves the paths the rules name now, with their secrets (generated ones read from
    /// or made in the bot's state folder).
    private func serve(_ inbox: WebhookInbox, secrets: inout [String: String]) {
        let endpoints = parts.rules.now.definition.webhooks
        for path in served.paths where !endpoints.contains(where: { $0.path == path }) {
            Self.unroute(path, parts.routes)
            served.remove(path)
            parts.logger.notice("bot \(parts.name): no longer serves webhooks on \(path)")
        }
        for endpoint in endpoints {
            var route = endpoint.route
            if endpoint.generatesSecret {
                if secrets[endpoint.path] == nil {
                    do {
                        secrets[endpoint.path] = try WebhookSecrets.resolve(
                            endpoint, bot: parts.name, folder: parts.configuration.stateDirectory + "/" + parts.name
                        ) { parts.logger.notice($0) }
                    } catch {
                        parts.logger.error("bot \(parts.name): webhook \(endpoint.path) is not served: \(error)")
                        continue
                    }
                }
                route = endpoint.serving(secret: secrets[endpoint.path] ?? "")
            }
            if served.route(for: endpoint.path) == nil {
                let added = parts.routes.add(
                    endpoint.path, bodyLimit: endpoint.maxBodyBytes, admit: { inbox.admit($0) }
                ) { request in
                    await inbox.receive(request)
                }
                guard added else {
                    parts.logger.error("bot \(parts.name): webhook \(endpoint.path) is not served: another bot serves it")
                    continue
                }
                if endpoint.route.format.takesSecretInPath {
                    parts.routes.add(endpoint.path + "/*", bodyLimit: endpoint.maxBodyBytes) { request in
                        await inbox.receive(request)
                    }
                }
                parts.logger.info("bot \(parts.name) takes webhooks on \(endpoint.path) (\(endpoint.route.format.rawValue))")
            }
            served.set(route)
        }
    }

    /// Stops answering a route's path, and the path with a secret after it.
    private static func unroute(_ path: String, _ routes: RunnerRoutes) {
        routes.remove(path)
        routes.remove(path + "/*")
    }
}
