import Foundation
import HTTPServer
import IMProtocol
import WebAssets

/// The operator console on the runner's listener: its page at `/console` (from the
/// binary's resources, `Web/console`) and its JSON under `/console/api/`, behind the
/// runner's metrics token or a server administrator's login (``ConsoleLogins``).
///
/// Everything it shows comes from what the runner already keeps for `/healthz`,
/// `/metrics` and the audit log, and from each running bot's journal state; the one
/// thing it changes is the reload it asks for, the same as SIGHUP's.
///
/// | path | does |
/// |---|---|
/// | `GET /console`, `GET /console/<file>` | the page and its files |
/// | `POST /console/api/login` `{username, password}` | `{token}` for an administrator |
/// | `POST /console/api/logout` | ends a console login |
/// | `GET /console/api/state` | bots, rules, webhooks, incidents, cases (``ConsoleReport``) |
/// | `GET /console/api/audit?after=OFFSET` | audit lines after a byte offset (``AuditTail``) |
/// | `POST /console/api/explain` | which rules an event or a webhook body fires (``ConsoleExplain``) |
/// | `POST /console/api/reload` | re-reads the bot files; `{problems}` |
struct OperatorConsole: Sendable {
    let runner: BotRunner
    let logins: ConsoleLogins

    static let site = StaticSite(folder: "console")

    init(runner: BotRunner) {
        self.runner = runner
        let configuration = runner.configuration
        logins = ConsoleLogins(metricsToken: configuration.metricsToken, serverURL: configuration.serverURL,
                               transport: runner.transport, time: configuration.time)
    }

    /// The answer for a console path; nil for any other path.
    func respond(to request: Request) async -> Response? {
        let path = request.path
        guard path == "/console" || path.hasPrefix("/console/") else { return nil }
        if path.hasPrefix("/console/api/") { return await api(request, String(path.dropFirst("/console/api/".count))) }
        guard request.method == .get || request.method == .head else {
            return Self.error(APIError(.methodNotAllowed, "\(request.method) is not allowed on \(path)"))
        }
        guard let site = Self.site else { return StaticSite.missing("console") }
        let name = path == "/console" || path == "/console/" ? "index.html" : String(path.dropFirst("/console/".count))
        return site.response(for: name, ifNoneMatch: request.headers["If-None-Match"])
            ?? Self.error(APIError(.notFound, "no file '\(name)' in the console"))
    }

    private func api(_ request: Request, _ route: String) async -> Response {
        do {
            switch (request.method, route) {
            case (.post, "login"):
                let body = try Self.decode(ConsoleLoginRequest.self, request.body)
                let token = try await logins.logIn(username: body.username, password: body.password)
                return Self.json(["token": token])
            default:
                break
            }
            guard let caller = logins.caller(request.headers["Authorization"]) else {
                throw ConsoleError(APIError(.unauthorized, "log in to the console: an administrator's login or the runner's metrics token"))
            }
            switch (request.method, route) {
            case (.post, "logout"):
                logins.logOut(request.headers["Authorization"])
                return Response(status: 204)
            case (.get, "state"):
                return Response(status: 200, headers: ["Content-Type": "application/json", "Cache-Control": "no-store"],
                                body: ConsoleReport(runner: runner, caller: caller).json())
            case (.get, "audit"):
                let after = request.query("after").flatMap { Int64($0) }
                let tail = AuditTail(path: runner.configuration.stateDirectory + "/audit.log")
                return Self.json(try tail.read(after: after))
            case (.post, "explain"):
                let body = try Self.decode(ConsoleExplain.Request.self, request.body)
                return Self.json(try ConsoleExplain(runner: runner).explain(body))
            case (.post, "reload"):
                runner.logger.notice("reload asked for from the console by \(caller)")
                return Self.json(["problems": await runner.reload()])
            default:
                throw ConsoleError(APIError(.notFound, "no console endpoint \(request.method) /console/api/\(route)"))
            }
        } catch let refusal as ConsoleError {
            return Self.error(refusal.error)
        } catch {
            return Self.error(APIError(.internalError, "\(error)"))
        }
    }

    static func decode<T: Decodable>(_ type: T.Type, _ body: Data) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: body)
        } catch {
            throw ConsoleError(APIError(.invalidRequest, "the body is not the JSON this endpoint takes: \(error)"))
        }
    }

    static func json<T: Encodable>(_ value: T) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return Response(status: 200, headers: ["Content-Type": "application/json", "Cache-Control": "no-store"], body: body)
    }

    static func error(_ error: APIError) -> Response {
        let body = (try? WireJSON.encoder().encode(ErrorEnvelope(error: error))) ?? Data()
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        if error.code == .unauthorized { headers.add("WWW-Authenticate", "Bearer") }
        return Response(status: error.code.httpStatus, headers: headers, body: body)
    }
}

struct ConsoleLoginRequest: Decodable {
    let username: String
    let password: String
}
