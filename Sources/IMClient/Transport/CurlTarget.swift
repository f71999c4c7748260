import CCurl

/// The server a request goes to, parsed by libcurl's URL API before anything is queued.
///
/// Parsing up front turns a bad URL into `.invalidURL` at once, and gives every error
/// message the `host:port` a person needs to find the server.
struct CurlTarget: Sendable, Equatable {
    var scheme: String
    var host: String
    var port: Int

    /// `host:port`, as error messages print it.
    var hostPort: String { "\(host):\(port)" }

    init(url: String) throws(TransportError) {
        guard let parser = curl_url() else {
            throw TransportError(code: .other, message: "libcurl could not allocate a URL parser",
                                 requestNotSent: true)
        }
        defer { curl_url_cleanup(parser) }
        let code = curl_url_set(parser, CURLUPART_URL, url, 0)
        guard code == CURLUE_OK else {
            throw Self.invalid(url, String(cString: curl_url_strerror(code)))
        }
        let scheme = (Self.part(parser, CURLUPART_SCHEME) ?? "").lowercased()
        guard scheme == "http" || scheme == "https" else {
            throw Self.invalid(url, "only http and https are supported")
        }
        guard let host = Self.part(parser, CURLUPART_HOST), !host.isEmpty else {
            throw Self.invalid(url, "no host")
        }
        guard let portText = Self.part(parser, CURLUPART_PORT, flags: UInt32(CURLU_DEFAULT_PORT)),
              let port = Int(portText) else {
            throw Self.invalid(url, "no port")
        }
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    private static func part(_ parser: OpaquePointer, _ part: CURLUPart, flags: UInt32 = 0) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard curl_url_get(parser, part, &value, flags) == CURLUE_OK, let value else { return nil }
        defer { curl_free(value) }
        return String(cString: value)
    }

    private static func invalid(_ url: String, _ reason: String) -> TransportError {
        let shown = url.count > 200 ? String(url.prefix(200)) + "…" : url
        return TransportError(code: .invalidURL, message: "invalid URL '\(shown)': \(reason)",
                              requestNotSent: true)
    }
}
