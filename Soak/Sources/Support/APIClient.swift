import Foundation
import IMClient
import IMProtocol

/// A client of the server under test over the client core's HTTP transport: any request,
/// the answers decoded, and sends retried the way a careful client retries them (the same
/// `client_msg_id` until the send is answered).
struct APIClient: Sendable {
    let transport: CurlTransport
    let baseURL: String
    var token: String?

    /// An answer of any status.
    struct Answer: Sendable {
        var status: Int
        var body: Data
        var retryAfter: Int?

        func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
            do {
                return try WireJSON.decoder().decode(T.self, from: body)
            } catch {
                throw SoakFailure("status \(status): cannot read \(T.self) from \(String(decoding: body.prefix(300), as: UTF8.self))")
            }
        }

        /// The error envelope's error, when the body is one.
        var error: APIError? { try? WireJSON.decoder().decode(ErrorEnvelope.self, from: body).error }

        /// `503 UNAVAILABLE`, `500 INTERNAL` or `no envelope` for a report.
        var summary: String {
            guard status >= 400 else { return "\(status)" }
            return "\(status) \(error?.code.rawValue ?? "without the error envelope")"
        }
    }

    func send(_ method: String, _ path: String, body: Data? = nil, timeout: Duration = .seconds(30)) async throws -> Answer {
        var headers: [(name: String, value: String)] = []
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        if body != nil { headers.append(("Content-Type", "application/json")) }
        let response = try await transport.send(TransportRequest(
            method: method, url: baseURL + path, headers: headers, body: body, timeout: timeout,
            connectTimeout: .seconds(2)))
        return Answer(status: response.status, body: response.body,
                      retryAfter: response.header("Retry-After").flatMap { Int($0) })
    }

    func send<T: Encodable>(_ method: String, _ path: String, json value: T, timeout: Duration = .seconds(30)) async throws -> Answer {
        try await send(method, path, body: try WireJSON.encoder().encode(value), timeout: timeout)
    }

    /// A request that must succeed (set-up): its answer, or a failure naming it.
    func expect(_ method: String, _ path: String, body: Data? = nil, status: ClosedRange<Int> = 200...299) async throws -> Answer {
        let answer = try await send(method, path, body: body)
        guard status.contains(answer.status) else {
            throw SoakFailure("\(method) \(path) answered \(answer.status): \(String(decoding: answer.body.prefix(300), as: UTF8.self))")
        }
        return answer
    }

    /// A client logged in as a new person's account.
    func register(_ username: String, password: String) async throws -> APIClient {
        let body = try WireJSON.encoder().encode(RegisterRequest(username: username, password: password))
        return with(token: try await expect("POST", "/v1/register", body: body).decode(AuthResponse.self).token)
    }

    /// A client logged in as an existing account.
    func login(_ username: String, password: String) async throws -> APIClient {
        let body = try WireJSON.encoder().encode(LoginRequest(username: username, password: password))
        return with(token: try await expect("POST", "/v1/login", body: body).decode(AuthResponse.self).token)
    }

    func with(token: String) -> APIClient {
        var client = self
        client.token = token
        return client
    }

    /// Every message of a conversation, oldest first, read page by page.
    func history(_ address: String) async throws -> [Message] {
        var messages: [Message] = []
        var before: Int64?
        repeat {
            let query = before.map { "&before=\($0)" } ?? ""
            let page: MessagePage = try await expect("GET", "/v1/conversations/\(address)/messages?limit=200\(query)").decode()
            messages += page.messages
            before = page.nextBefore
        } while before != nil
        return messages.reversed()
    }
}

/// How a send went once it was answered, or given up.
struct SendOutcome: Sendable {
    /// The stored message; nil when the send was given up.
    var message: Message?
    var attempts: Int
    /// What each failed attempt got: `connection refused`, `503 UNAVAILABLE`, ….
    var failures: [String]
    /// How long the slowest failed attempt took to fail.
    var slowestFailure: Duration = .zero
}

extension APIClient {
    /// Sends until the server answers the send (201, or 200 for a repeat), retrying on
    /// lost connections, 5xx and 429 with the same `client_msg_id`, for at most `patience`.
    func sendRetrying(_ text: String, to address: String, clientMessageID: String,
                      patience: Duration = .seconds(120)) async -> SendOutcome {
        let clock = ContinuousClock()
        let deadline = clock.now + patience
        var outcome = SendOutcome(message: nil, attempts: 0, failures: [])
        var pause = Duration.milliseconds(20)
        let body = SendMessageRequest(text: text, clientMessageID: clientMessageID)
        while clock.now < deadline {
            outcome.attempts += 1
            var wait = pause
            let attempt = clock.now
            defer { if outcome.message == nil { outcome.slowestFailure = max(outcome.slowestFailure, clock.now - attempt) } }
            do {
                let answer = try await send("POST", "/v1/conversations/\(address)/messages", json: body, timeout: .seconds(20))
                switch answer.status {
                case 200, 201:
                    outcome.message = try? answer.decode(Message.self)
                    if outcome.message != nil { return outcome }
                    outcome.failures.append("\(answer.status) with an unreadable body")
                case 429:
                    outcome.failures.append(answer.summary)
                    wait = .seconds(answer.retryAfter ?? 1)
                case 500...:
                    outcome.failures.append(answer.summary + (answer.status == 503 && answer.retryAfter == nil
                        ? " without Retry-After" : ""))
                default:
                    // A client error will not change on retry.
                    outcome.failures.append(answer.summary)
                    return outcome
                }
            } catch let error as TransportError {
                outcome.failures.append(error.code.rawValue)
            } catch {
                outcome.failures.append("\(error)")
            }
            try? await Task.sleep(for: wait)
            pause = min(pause * 2, .milliseconds(500))
        }
        return outcome
    }
}
