import Foundation
import HTTPServer

/// A method's parameters, from whichever of the four encodings the sender used: the
/// query string, a JSON body, a URL-encoded form or a multipart form (the last two
/// decoded by libmicrohttpd). Values that are not strings arrive as JSON text in forms
/// and query strings (`reply_parameters={"message_id":5}`), and some senders put numbers
/// and booleans in JSON as strings (`"chat_id":"-1001"`): every accessor takes both.
///
/// Not `Sendable`: it lives in one request's task.
struct TelegramParameters {
    enum Value {
        case text(String)
        /// A JSON value other than a string (a number, boolean, array or object).
        case json(Any)
        case file(FormField)
    }

    private(set) var values: [String: Value] = [:]

    init(_ values: [String: Value] = [:]) { self.values = values }

    /// The parameters of a request; a body that is neither JSON nor a form is a 400.
    init(request: Request) throws {
        for (name, value) in request.query { values[name] = .text(value) }
        if let form = request.form {
            for field in form {
                values[field.name] = field.filename == nil ? .text(field.text) : .file(field)
            }
            return
        }
        let body = request.body
        guard let first = body.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else { return }
        let contentType = request.headers["Content-Type"]?.lowercased() ?? ""
        guard contentType.contains("json") || first == UInt8(ascii: "{") else {
            throw TelegramError.badRequest(
                "the parameters must be JSON, a URL-encoded or multipart form, or a query string "
                    + "(Content-Type was '\(contentType)')")
        }
        guard let object = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]),
            let fields = object as? [String: Any]
        else {
            throw TelegramError.badRequest("the body is not a JSON object")
        }
        for (name, value) in fields {
            switch value {
            case is NSNull: continue
            case let text as String: values[name] = .text(text)
            default: values[name] = .json(value)
            }
        }
    }

    subscript(name: String) -> Value? { values[name] }

    func has(_ name: String) -> Bool { values[name] != nil }

    /// A whole number, or nil when absent.
    func int(_ name: String) throws -> Int64? {
        switch values[name] {
        case nil:
            return nil
        case .text(let text):
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { return nil }
            guard let value = Int64(trimmed) else { throw TelegramError.badRequest("\(name) must be a number, got '\(text)'") }
            return value
        case .json(let value):
            guard let number = value as? NSNumber, !Self.isBool(number), number.doubleValue == number.doubleValue.rounded()
            else { throw TelegramError.badRequest("\(name) must be a number") }
            return number.int64Value
        case .file:
            throw TelegramError.badRequest("\(name) must be a number, not a file")
        }
    }

    func requiredInt(_ name: String) throws -> Int64 {
        guard let value = try int(name) else { throw TelegramError.badRequest("\(name) is empty") }
        return value
    }

    /// Text, or nil when absent (a number is taken as its digits).
    func string(_ name: String) throws -> String? {
        switch values[name] {
        case nil: return nil
        case .text(let text): return text
        case .json(let value):
            if let number = value as? NSNumber, !Self.isBool(number) { return number.stringValue }
            throw TelegramError.badRequest("\(name) must be a string")
        case .file: throw TelegramError.badRequest("\(name) must be a string, not a file")
        }
    }

    func requiredString(_ name: String) throws -> String {
        guard let value = try string(name), !value.isEmpty else { throw TelegramError.badRequest("\(name) is empty") }
        return value
    }

    /// `true`/`false` (also `1`/`0`, any case), or nil when absent.
    func bool(_ name: String) throws -> Bool? {
        switch values[name] {
        case nil: return nil
        case .text(let text):
            switch text.trimmingCharacters(in: .whitespaces).lowercased() {
            case "": return nil
            case "true", "1", "yes": return true
            case "false", "0", "no": return false
            default: throw TelegramError.badRequest("\(name) must be true or false, got '\(text)'")
            }
        case .json(let value):
            guard let number = value as? NSNumber else { throw TelegramError.badRequest("\(name) must be true or false") }
            return number.boolValue
        case .file: throw TelegramError.badRequest("\(name) must be true or false, not a file")
        }
    }

    /// A JSON object or array, decoded; it may arrive as JSON or as JSON text.
    func decode<T: Decodable>(_ name: String, as type: T.Type) throws -> T? {
        let data: Data
        switch values[name] {
        case nil: return nil
        case .text(let text):
            if text.trimmingCharacters(in: .whitespaces).isEmpty { return nil }
            data = Data(text.utf8)
        case .json(let value):
            guard let encoded = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed]) else {
                throw TelegramError.badRequest("\(name) is not valid JSON")
            }
            data = encoded
        case .file: throw TelegramError.badRequest("\(name) must be JSON, not a file")
        }
        do {
            return try TelegramJSON.decoder.decode(T.self, from: data)
        } catch {
            throw TelegramError.badRequest("can't parse \(name): \(Self.describe(error))")
        }
    }

    /// An uploaded file: the field itself, or the one an `attach://<name>` value names.
    func file(_ name: String) -> FormField? {
        switch values[name] {
        case .file(let field): return field
        case .text(let text) where text.hasPrefix("attach://"):
            if case .file(let field) = values[String(text.dropFirst("attach://".count))] { return field }
            return nil
        default: return nil
        }
    }

    /// JSON's `true` and `false` decode as NSNumbers of type `c` (a number is never one).
    private static func isBool(_ number: NSNumber) -> Bool {
        String(cString: number.objCType) == "c"
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "field '\(key.stringValue)' is missing"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "field '\(context.codingPath.map(\.stringValue).joined(separator: "."))' has the wrong type"
        case DecodingError.dataCorrupted(let context):
            context.codingPath.isEmpty
                ? "not valid JSON" : "field '\(context.codingPath.map(\.stringValue).joined(separator: "."))' is invalid"
        default: "not valid JSON"
        }
    }
}
