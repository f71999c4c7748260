import Foundation
import HTTPServer
import IMProtocol

/// One request on its way through a handler: the request, its path parameters, the
/// caller's session and the server's services.
///
/// A class, so that the async frames a request's task keeps (a parked poll's for up to
/// 50 s) hold one reference instead of a copy of the request and session each.
final class RequestContext: Sendable {
    let request: Request
    let parameters: [String: String]
    /// Set for every route that needs a login.
    let session: Session?
    let core: ServerServices

    init(request: Request, parameters: [String: String], session: Session?, core: ServerServices) {
        self.request = request
        self.parameters = parameters
        self.session = session
        self.core = core
    }

    /// The caller; routes that reach here without a login are a programming error
    /// reported as 401.
    var caller: Session {
        get throws {
            guard let session else { throw APIError(.unauthorized, "log in first") }
            return session
        }
    }

    /// The client budgets and the hashing queue count this request against: its
    /// address, by its /64 for IPv6.
    var client: String { IPAddressRange.clientKey(of: request.remoteAddress) }

    /// A path parameter by name.
    func parameter(_ name: String) throws -> String {
        guard let value = parameters[name], !value.isEmpty else {
            throw APIError.invalid(name, "missing \(name) in the path")
        }
        return value
    }

    /// The body decoded as JSON, or a 400 naming what is wrong.
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if request.body.isEmpty {
            throw APIError(.invalidRequest, "a JSON body is required")
        }
        do {
            return try core.decoder.decode(T.self, from: request.body)
        } catch let error as DecodingError {
            throw APIError(decoding: error)
        }
    }

    /// An integer query argument within `range`, or `fallback` when absent.
    func queryInt(_ name: String, in range: ClosedRange<Int>, default fallback: Int?) throws -> Int? {
        guard let text = request.query(name), !text.isEmpty else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            let allowed =
                range.upperBound == Int.max
                ? "a whole number of at least \(range.lowerBound)"
                : "a whole number from \(range.lowerBound) to \(range.upperBound)"
            throw APIError.invalid(name, "\(name) must be \(allowed)")
        }
        return value
    }
}

extension APIError {
    /// A 400 that says which field of the JSON body is wrong and how.
    init(decoding error: DecodingError) {
        func path(_ context: DecodingError.Context, _ key: (any CodingKey)? = nil) -> String {
            let keys = context.codingPath + (key.map { [$0] } ?? [])
            return keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
                .replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case .keyNotFound(let key, let context):
            let field = path(context, key)
            self.init(.invalidRequest, "missing field '\(field)'", field: field)
        case .typeMismatch(let type, let context):
            let field = path(context)
            self.init(.invalidRequest, "field '\(field)' must be \(Self.describe(type))", field: field)
        case .valueNotFound(let type, let context):
            let field = path(context)
            self.init(.invalidRequest, "field '\(field)' must be \(Self.describe(type)), not null", field: field)
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                self.init(.invalidRequest, "the body is not valid JSON (UTF-8)")
            } else {
                let field = path(context)
                self.init(.invalidRequest, "field '\(field)': \(context.debugDescription)", field: field)
            }
        @unknown default:
            self.init(.invalidRequest, "the body does not match the expected JSON")
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Int64.Type: "a whole number"
        case is Double.Type: "a number"
        case is Bool.Type: "true or false"
        case is [String: String].Type: "an object of strings"
        default:
            String(describing: type).hasPrefix("Array") ? "a list" : "an object"
        }
    }
}
