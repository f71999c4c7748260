import HTTPServer
import IMProtocol
import WebAssets

/// The web client: its page at `/` and its files at `/web/<name>`, from the binary's
/// resources (`Web/app`). Open routes: the page holds nothing of anyone's until it logs in
/// through the same `/v1` API as every client.
enum WebRoutes {
    static let routes: [Route] = [
        Route(.get, "/", access: .open) { file("index.html", $0) },
        Route(.get, "/web/:name", access: .open) { file(try $0.parameter("name"), $0) },
    ]

    /// Read once, at the first request.
    static let site = StaticSite(folder: "app")

    static func file(_ name: String, _ context: RequestContext) -> Response {
        guard let site else { return StaticSite.missing("web client") }
        return site.response(for: name, ifNoneMatch: context.request.headers["If-None-Match"])
            ?? .error(APIError(.notFound, "no file '\(name)' in the web client"))
    }
}
