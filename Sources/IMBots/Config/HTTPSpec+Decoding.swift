import IMProtocol
import YAMLCoding

extension HTTPSpec: Decodable {
    enum Key: String, CodingKey, CaseIterable {
        case method, url, headers, json, body, timeout, `as`, expect
    }

    static let methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]

    init(from decoder: any Decoder) throws {
        let context = decoder.botDecoding
        let container = try decoder.container(keyedBy: Key.self)
        // Problems are reported together (the loader refuses the file), so the values
        // below are read on past them.
        func fail(_ message: String, _ mark: YAMLMark, _ key: Key) {
            context.report(.invalidValue, message, at: mark)
        }

        let url = try container.decode(TemplateText.self, forKey: .url)
        if url.isConstant, !Self.isHTTPURL(url.source) {
            fail("'\(url.source)' is not an http:// or https:// URL", url.mark, .url)
        }
        if let host = Self.authority(of: url.source), host.contains("{{") {
            fail("the host of an http url cannot be a template ('\(host)'): a message could send the request "
                 + "anywhere; write the host in the file (or take it from ${VARIABLE})", url.position(line: 1, column: 1),
                 .url)
        }
        let headers = try container.decodeIfPresent(OrderedMap<TemplateText>.self, forKey: .headers)
        for entry in headers?.entries ?? [] where !Self.isToken(entry.key) {
            fail("'\(entry.key)' is not a valid header name", headers?.keyMarks[entry.key] ?? decoder.mark, .headers)
        }
        let json = try container.decodeIfPresent(ValueTemplate.self, forKey: .json)
        let text = try container.decodeIfPresent(TemplateText.self, forKey: .body)
        let body: Body
        switch (json, text) {
        case (let json?, nil): body = .json(json)
        case (nil, let text?): body = .text(text)
        case (nil, nil): body = .none
        case (.some, .some):
            fail("an http action sends either 'json' or 'body', not both", decoder.mark, .body)
            body = .none
        }

        var method = { if case .none = body { "GET" } else { "POST" } }()
        if let written = try container.decodeIfPresent(Located<String>.self, forKey: .method) {
            method = written.value.uppercased()
            if !Self.methods.contains(method) {
                fail("'\(written.value)' is not an HTTP method (use \(Self.methods.joined(separator: ", ")))",
                     written.mark, .method)
            }
        }

        let timeout = try container.decodeIfPresent(Located<ConfigDuration>.self, forKey: .timeout)
        let longest = HTTPActionClient.maximumTimeout.seconds
        if let timeout, !(timeout.value.seconds > 0 && timeout.value.seconds <= longest) {
            fail("an http timeout must be more than 0 and at most \(Int(longest))s", timeout.mark, .timeout)
        }

        var name: String?
        if let written = try container.decodeIfPresent(Located<String>.self, forKey: .as) {
            if Self.isIdentifier(written.value), !TemplateVariables.roots.contains(written.value) {
                name = written.value
            } else {
                let reason = TemplateVariables.roots.contains(written.value)
                    ? "'\(written.value)' is a built-in template variable; choose another name"
                    : "'\(written.value)' is not a usable name (letters, digits and '_', not starting with a digit)"
                fail(reason, written.mark, .as)
            }
        }

        let expect = try container.decodeIfPresent(StatusExpectation.self, forKey: .expect) ?? .success
        self.init(method: method, url: url, headers: headers?.entries ?? [], body: body,
                  timeout: timeout?.value ?? Self.defaultTimeout, name: name, expect: expect)
    }

    /// The `host:port` part of an http(s) URL as written (template tags included).
    static func authority(of url: String) -> String? {
        let text = url.trimmedWhitespace
        guard let scheme = text.range(of: "://") else { return nil }
        let rest = text[scheme.upperBound...]
        // The authority ends at the first '/', '?' or '#' outside a template tag.
        var depth = 0
        var end = rest.endIndex
        var index = rest.startIndex
        while index < rest.endIndex {
            if rest[index...].hasPrefix("{{") {
                depth += 1
                index = rest.index(index, offsetBy: 2)
                continue
            }
            if rest[index...].hasPrefix("}}"), depth > 0 {
                depth -= 1
                index = rest.index(index, offsetBy: 2)
                continue
            }
            if depth == 0, "/?#".contains(rest[index]) {
                end = index
                break
            }
            index = rest.index(after: index)
        }
        return String(rest[..<end])
    }

    /// The first path segment of `url` that is `.` or `..` (written so, or as `%2e`),
    /// which a client or server would fold away; nil when there is none.
    static func dotSegment(in url: String) -> String? {
        guard let scheme = url.range(of: "://") else { return nil }
        let rest = url[scheme.upperBound...]
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        let path = rest[slash...].prefix { $0 != "?" && $0 != "#" }
        for segment in path.split(separator: "/", omittingEmptySubsequences: true) {
            let plain = segment.lowercased().replacingOccurrences(of: "%2e", with: ".")
            if plain == "." || plain == ".." { return String(segment) }
        }
        return nil
    }

    static func isHTTPURL(_ text: String) -> Bool {
        let lowered = text.trimmedWhitespace.lowercased()
        return (lowered.hasPrefix("http://") && lowered.count > 7)
            || (lowered.hasPrefix("https://") && lowered.count > 8)
    }

    /// An HTTP token (RFC 9110): what header names are made of.
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            ByteText.isASCIIAlphanumeric(byte) || "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    static func isIdentifier(_ text: String) -> Bool {
        guard let first = text.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            return false
        }
        return text.utf8.allSatisfy { ByteText.isASCIIAlphanumeric($0) || $0 == UInt8(ascii: "_") }
    }
}

extension StatusExpectation: Decodable {
    /// `2xx`, `any`, `404`, or a list of these.
    init(from decoder: any Decoder) throws {
        let items = try decoder.decodeValue(OneOrMany<Located<String>>.self).items
        var patterns: [Pattern] = []
        for item in items {
            guard let pattern = Self.pattern(item.value) else {
                throw decoder.botDecoding.failure(
                    .invalidValue, "'\(item.value)' is not a status pattern (write 2xx, 404, any, or a list)",
                    at: item.mark, path: decoder.codingPath)
            }
            patterns.append(pattern)
        }
        self.init(patterns: patterns)
    }
}
