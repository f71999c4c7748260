import Lifecycle
import Logging
import Synchronization

/// The alert bridge's timed work, one of a bot's ``TimerService``: serves the bot's
/// `webhooks:` on the runner's listener (the inbox), processes what the inbox stored, and
/// keeps the time of held resolves, dead-man's switches and reconciliation on the
/// runner's clock.
///
/// It follows reloads: paths that appear are served, paths that go stop being served,
/// and a changed secret or format applies to the next request.
final class AlertTimers: TimedWork {
    let desk: AlertDesk
    private let parts: BotParts
    private let served = ServedRoutes()
    private let bell: Doorbell
    private let inbox: WebhookInbox
    private let secrets = Mutex<[String: String]>([:])

    init(parts: BotParts, outbox: Outbox) {
        self.parts = parts
        let bell = Doorbell()
        self.bell = bell
        // A step a command took (a silence noted, a /refresh) may bring a deadline nearer.
        desk = AlertDesk(parts: parts, outbox: outbox, changed: { bell.ring() })
        inbox = WebhookInbox(parts: parts, routes: served) { bell.ring() }
    }

    /// Stops answering the paths it served.
    func stop() {
        for path in served.paths { Self.unroute(path, parts.routes) }
    }

    func start() async {
        parts.rules.onReplace { [bell] in bell.ring() }
        if parts.configuration.listen == nil {
            parts.logger.warning("bot \(parts.name) has webhooks, but the runner has no listener (runner.listen): "
                                 + "nothing can send them")
        }
        await desk.start()
    }

    /// A stored delivery, a reload, or a step that may bring a deadline nearer.
    func changed() async {
        await bell.wait()
    }

    func tick() async -> Int64? {
        secrets.withLock { serve(inbox, secrets: &$0) }
        let processed = await desk.processInbox()
        let advanced = await desk.advance()
        await desk.reconcileDue()
        // Alerts that waited for room in the outbox are tried again in a second.
        var next: Int64? = processed && advanced ? nil : parts.time.wallMilliseconds + 1000
        for deadline in [desk.nextDeadline, await desk.nextReconcile()].compactMap({ $0 }) {
            next = min(next ?? deadline, deadline)
        }
        return next
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
