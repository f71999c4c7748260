import Foundation
import IMProtocol

/// The one place where API calls become HTTP and answers become values or errors.
extension IMClient {
    /// Sends `request` and returns the answer if its status is below 400; an error
    /// answer is thrown as `IMClientError` with the server's `APIError` inside.
    ///
    /// Its frame lies under every parked poll: the request is built and a failure is
    /// read in synchronous calls, so that across the wait it holds little more than the
    /// request.
    func perform(_ request: APIRequest) async throws(IMClientError) -> TransportResponse {
        let wire = try transportRequest(for: request)
        let response: TransportResponse
        do {
            response = try await transport.send(wire)
        } catch {
            throw Self.failure(error, server: serverURL)
        }
        guard response.status >= 400 else { return response }
        throw Self.errorAnswer(response, for: request, server: serverURL)
    }

    @inline(never)
    private func transportRequest(for request: APIRequest) throws(IMClientError) -> TransportRequest {
        var headers: [(name: String, value: String)] = [("Accept", "application/json")]
        if request.authenticated {
            guard let token else { throw IMClientError.notLoggedIn }
            headers.append(("Authorization", "Bearer \(token)"))
        }
        if let contentType = request.contentType { headers.append(("Content-Type", contentType)) }
        return TransportRequest(
            method: request.method, url: request.url(on: serverURL), headers: headers, body: request.body,
            timeout: request.timeout ?? configuration.requestTimeout, connectTimeout: configuration.connectTimeout)
    }

    /// What a transport's failure means for the caller.
    @inline(never)
    private static func failure(_ error: any Error, server: String) -> IMClientError {
        switch error {
        case let error as TransportError: IMClientError.transport(error, server: server)
        case is CancellationError: IMClientError.cancelled
        default: IMClientError(.transport, "request to \(server) failed: \(error)")
        }
    }

    /// The error an answer with status >= 400 stands for.
    @inline(never)
    static func errorAnswer(_ response: TransportResponse, for request: APIRequest, server: String) -> IMClientError {
        let headerWait = response.header("Retry-After").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        if var error = try? WireJSON.decoder().decode(ErrorEnvelope.self, from: response.body).error {
            if error.retryAfter == nil { error.retryAfter = headerWait }
            return IMClientError.api(error, context: request.context)
        }
        // Not our envelope: a proxy's page, or a server that is not Switchboard.
        let code = ErrorCode(httpStatus: response.status)
        let api = code.map { APIError($0, "HTTP \(response.status)", retryAfter: headerWait) }
        return IMClientError(
            code.map { .api($0) } ?? .badResponse,
            "\(server) answered \(request.summary) with HTTP \(response.status) and no Switchboard error: "
                + snippet(response.body),
            api: api)
    }

    /// Sends `request` and decodes the answer as `T`.
    func call<T: Decodable>(_ request: APIRequest, as type: T.Type = T.self) async throws(IMClientError) -> T {
        let response = try await perform(request)
        return try decode(T.self, from: response, for: request)
    }

    /// Sends `request` and ignores the answer's body.
    func callDiscardingBody(_ request: APIRequest) async throws(IMClientError) {
        _ = try await perform(request)
    }

    func decode<T: Decodable>(
        _ type: T.Type, from response: TransportResponse, for request: APIRequest
    ) throws(IMClientError) -> T {
        do {
            return try WireJSON.decoder().decode(T.self, from: response.body)
        } catch {
            throw IMClientError(
                .badResponse,
                "unexpected answer from \(serverURL) to \(request.summary) (HTTP \(response.status)): "
                    + "not a \(T.self): \(Self.describe(error)); body: \(Self.snippet(response.body))")
        }
    }

    static func snippet(_ body: Data) -> String {
        if body.isEmpty { return "(empty)" }
        let text = String(decoding: body.prefix(200), as: UTF8.self)
        return body.count > 200 ? text + "…" : text
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "missing field '\(key.stringValue)'"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
            DecodingError.dataCorrupted(let context):
            context.codingPath.isEmpty
                ? context.debugDescription
                : "field '\(context.codingPath.map(\.stringValue).joined(separator: "."))': \(context.debugDescription)"
        default: "\(error)"
        }
    }
}
