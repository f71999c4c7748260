import Foundation
import IMClient
import Lifecycle
import Templates

extension RuleRun {
    /// Renders and (when enforced) makes the request; the response becomes the variable
    /// named by `as` for the rule's later actions.
    mutating func http(_ spec: HTTPSpec, key: String, root: TemplateValue, effects: some BotEffects,
                       _ fail: (ActionError.Code, String) -> ActionError) async throws(ActionError) -> ActionEffect {
        // Values are percent-encoded: a sender's text cannot add a path, a query or a host.
        let url = spec.url.renderURL(root).trimmedWhitespace
        guard HTTPSpec.isHTTPURL(url) else {
            throw fail(.invalidURL, "'\(url)' is not an http:// or https:// URL (from '\(spec.url.source)')")
        }
        // A value of `.` or `..` is a whole path segment once rendered: libcurl and the
        // receiver would fold it away and climb the path (`/users/{{argv.1}}/profile`
        // with `..` is `/profile`), so the request is not made.
        if let segment = HTTPSpec.dotSegment(in: url) {
            throw fail(.invalidURL, "the URL's path would hold the segment '\(segment)' ('\(url.prefix(200))', from "
                       + "'\(spec.url.source)'): a value may not climb the path; the request was not made")
        }
        var headers = spec.headers.map { (name: $0.key, value: $0.value.render(root)) }
        var body: Data?
        switch spec.body {
        case .none: break
        case .json(let value):
            body = Data(value.render(root).json.utf8)
            addDefault("Content-Type", "application/json", to: &headers)
        case .text(let text):
            body = Data(text.render(root).utf8)
            addDefault("Content-Type", "text/plain; charset=utf-8", to: &headers)
        }
        addDefault("Idempotency-Key", key, to: &headers)
        let request = TransportRequest(method: spec.method, url: url, headers: headers, body: body,
                                       timeout: .seconds(clamping: spec.timeout.seconds))
        var call = HTTPCall(method: spec.method, url: url, name: spec.name, idempotencyKey: key, status: nil)
        guard performs else { return .http(call) }

        let response: TransportResponse
        do {
            response = try await effects.http(request)
        } catch {
            throw fail(.effectFailed, "\(spec.method) \(url) failed: \(error)")
        }
        call.status = response.status
        guard spec.expect.accepts(response.status) else {
            let text = String(decoding: response.body.prefix(200), as: UTF8.self)
            throw fail(.unexpectedStatus, "HTTP \(response.status) from \(spec.method) \(url), expected \(spec.expect)"
                       + (text.isEmpty ? "" : ": \(text)"))
        }
        if let name = spec.name { remember(name, Self.value(of: response)) }
        return .http(call)
    }

    /// `status`, `ok`, `text`, `headers` (names lowered) and `body`: decoded JSON when the
    /// response is JSON, the text otherwise.
    static func value(of response: TransportResponse) -> TemplateValue {
        let text = String(decoding: response.body, as: UTF8.self)
        var body = TemplateValue.string(text)
        let type = response.header("Content-Type")?.lowercased() ?? ""
        let looksJSON = type.contains("json")
            || (type.isEmpty && ["{", "["].contains(text.first { !$0.isWhitespace }))
        if looksJSON, !response.body.isEmpty,
           let json = try? JSONSerialization.jsonObject(with: response.body, options: [.fragmentsAllowed]) {
            body = TemplateValue(json: json)
        }
        var headers: [String: TemplateValue] = [:]
        for header in response.headers { headers[header.name.lowercased()] = .string(header.value) }
        return ["status": .int(response.status), "ok": .bool((200..<300).contains(response.status)),
                "text": .string(text), "body": body, "headers": .object(headers)]
    }

    private func addDefault(_ name: String, _ value: String, to headers: inout [(name: String, value: String)]) {
        let lowered = name.lowercased()
        if !headers.contains(where: { $0.name.lowercased() == lowered }) { headers.append((name, value)) }
    }
}
