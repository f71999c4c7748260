import Foundation
import HTTPServer
import IMProtocol
import IMStore

/// The Telegram Bot API on the IM listener: `/bot<token>/<method>` (method names in any
/// case, as Telegram's) and `/file/bot<token>/<path>`. Each method is mapped onto the
/// services the `/v1` routes use, as the bot whose token is in the path: the same
/// checks, budgets and events (docs/telegram.md lists the methods and how they map).
enum TelegramGateway {
    /// Whether a path is the Telegram dialect's: `/bot` or `/file/bot` followed by a
    /// token, which starts with the bot's id (so `/bot.png` and the like stay the web
    /// client's).
    static func handles(_ path: String) -> Bool {
        let utf8 = path.utf8
        for prefix in ["/bot", "/file/bot"] where path.hasPrefix(prefix) {
            let next = utf8.dropFirst(prefix.utf8.count).first
            return next.map { (0x30...0x39).contains($0) } ?? false
        }
        return false
    }

    /// Uploads (a document's bytes) may be larger than a JSON body.
    static let bodyLimit = 4 << 20

    /// A body larger than the server reads unchecked is read only for a bot whose token
    /// the path carries (up to `bodyLimit`); anyone else gets Telegram's 401 or 404 with
    /// none of it read.
    static func checkedAdmission(for head: RequestHead, core: ServerServices) async -> BodyAdmission {
        do {
            _ = try await authenticate(try split(head.path).token, core: core)
            return .read(limit: bodyLimit)
        } catch {
            let response = (error as? TelegramError)?.response ?? TelegramError.unauthorized.response
            core.metrics.recordRequest(method: head.method, route: "/bot{token}/{method}", status: response.status)
            return .refuse(response)
        }
    }

    static func respond(to request: Request, core: ServerServices) async -> Response {
        let started = core.monotonic()
        var label = "/bot{token}/{method}"
        let response: Response
        do {
            let (token, rest, isFile) = try split(request.path)
            let session = try await authenticate(token, core: core)
            if isFile {
                label = "/file/bot{token}/{path}"
                try core.spend(.general, session: session)
                response = try await TelegramFiles.download(rest, session: session, core: core)
            } else {
                guard let method = TelegramMethods.all[rest.lowercased()] else {
                    throw TelegramMethods.unsupported(rest)
                }
                label = "/bot{token}/\(method.name)"
                try core.spend(method.budget, session: session)
                let call = TelegramCall(
                    core: core, session: session, request: request, parameters: try TelegramParameters(request: request))
                response = try await method.handler(call)
            }
        } catch {
            response = failure(error, core: core, request: request, label: label)
        }
        if !response.isDeferred {
            core.metrics.recordRequest(method: request.method, route: label, status: response.status)
            if core.logger.level <= .debug {
                core.logger.debug(
                    "\(request.method) \(label) \(response.status)",
                    [("ms", String(Int((core.monotonic() - started) * 1000))), ("peer", request.remoteAddress)])
            }
        }
        return response
    }

    /// The token and the method (or file path) of a path; 404 for a path of neither shape.
    private static func split(_ path: String) throws -> (token: Substring, rest: String, isFile: Bool) {
        let isFile = path.hasPrefix("/file/bot")
        let tail = path.dropFirst(isFile ? "/file/bot".count : "/bot".count)
        guard let slash = tail.firstIndex(of: "/") else { throw TelegramError(404, "Not Found") }
        let rest = tail[tail.index(after: slash)...]
        guard !rest.isEmpty, isFile || !rest.contains("/") else { throw TelegramError(404, "Not Found") }
        return (tail[..<slash], String(rest), isFile)
    }

    /// The bot whose token is in the path: a bot account's login of the Telegram shape
    /// whose id is its own.
    private static func authenticate(_ token: Substring, core: ServerServices) async throws -> Session {
        guard let id = TelegramToken.userID(in: token) else { throw TelegramError.unauthorized }
        let session: Session
        do {
            session = try await core.authenticator.authenticate("Bearer \(token)")
        } catch let error as APIError where error.code == .unauthorized {
            throw TelegramError(401, error.reason == "invalid" ? "Unauthorized" : "Unauthorized: \(error.message)")
        }
        guard session.isBot, session.userID == id, !session.isLocalAdministrator else { throw TelegramError.unauthorized }
        return session
    }

    /// Telegram's error for any failure; a server fault is logged.
    static func failure(_ error: any Error, core: ServerServices, request: Request, label: String) -> Response {
        if let telegram = error as? TelegramError { return telegram.response }
        let (apiError, logged) = ErrorMapping.apiError(for: error)
        core.failures.failed("\(request.method) \(label)", route: label, error: error, logged: logged)
        return TelegramError(apiError).response
    }
}

/// One method call: the bot, its parameters, and the server's services.
///
/// A class, so that the async frames a call keeps while it waits hold one reference.
final class TelegramCall {
    let core: ServerServices
    let session: Session
    let request: Request
    let parameters: TelegramParameters
    /// What this call looked up about users and chats.
    let objects: TelegramObjects

    init(core: ServerServices, session: Session, request: Request, parameters: TelegramParameters) {
        self.core = core
        self.session = session
        self.request = request
        self.parameters = parameters
        self.objects = TelegramObjects(core: core, bot: session.userID)
    }

    var bot: UserID { session.userID }

    /// Runs a `/v1` route's handler as the bot, with `body` as its JSON body and `path`
    /// as its path parameters, and decodes its answer: the same checks, the same
    /// writes and events as the route's, without HTTP.
    func v1<Answer: Decodable>(
        _ handler: (RequestContext) async throws -> Response, path: [String: String] = [:],
        body: (some Encodable)? = Optional<Empty>.none, as answer: Answer.Type
    ) async throws -> Answer {
        let response = try await v1(handler, path: path, body: body)
        return try core.decoder.decode(Answer.self, from: response.body)
    }

    /// The same, for a route whose answer is not needed.
    @discardableResult
    func v1(
        _ handler: (RequestContext) async throws -> Response, path: [String: String] = [:],
        body: (some Encodable)? = Optional<Empty>.none
    ) async throws -> Response {
        let bytes = try body.map { try core.encoder.encode($0) } ?? Data()
        let inner = Request(
            method: .post, path: request.path, headers: ["Content-Type": "application/json"], body: bytes,
            remoteAddress: request.remoteAddress, peerAddress: request.peerAddress)
        do {
            return try await handler(RequestContext(request: inner, parameters: path, session: session, core: core))
        } catch {
            // A refusal the store decided (not a member, muted, not the sender) comes out
            // as the route's API error, so callers can tell refusals apart by code.
            let (apiError, logged) = ErrorMapping.apiError(for: error)
            if logged == .no, !(error is APIError) { throw apiError }
            throw error
        }
    }

    /// An empty body.
    struct Empty: Codable {}
}
