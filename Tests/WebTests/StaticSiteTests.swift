import Foundation
import TestSupport
import Testing
import WebAssets

/// The web client's and the console's files as the server sends them: every file there,
/// the safety headers on each, revalidation, and the size aim.
@Suite struct StaticSiteTests {
    @Test func theServerAnswersThePageWithAStrictPolicy() async throws {
        let server = try await TestServer.start()
        try await ensuring({
            let client = TestClient(server: server)
            let page = try await client.get("/")
            #expect(page.status == 200)
            #expect(page.header("Content-Type") == "text/html; charset=utf-8")
            let policy = try #require(page.header("Content-Security-Policy"))
            #expect(policy.contains("script-src 'self'"))
            #expect(policy.contains("style-src 'self'"))
            #expect(policy.contains("frame-ancestors 'none'"))
            #expect(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval"))
            #expect(page.header("X-Content-Type-Options") == "nosniff")
            #expect(page.header("Referrer-Policy") == "no-referrer")
            #expect(page.text.contains("data-test=\"login-username\""))
            // Nothing inline: no <script> with a body, no style attribute or element.
            #expect(page.text.range(of: "<script>") == nil && page.text.range(of: "style=") == nil)
            #expect(page.text.range(of: "<style") == nil)

            let script = try await client.get("/web/main.js")
            #expect(script.status == 200)
            #expect(script.header("Content-Type") == "text/javascript; charset=utf-8")
            let etag = try #require(script.header("ETag"))
            let again = try await client.send("GET", "/web/main.js", headers: [("If-None-Match", etag)])
            #expect(again.status == 304)
            #expect(try await client.get("/web/nothing.js").status == 404)
            #expect(try await client.get("/web/..%2Fconfig.yaml").status == 404)
            // The API's own answers are unchanged.
            #expect(try await client.get("/v1/nothing").status == 404)
        }) { await server.stop() }
    }

    @Test func everyFileOfTheFoldersIsServedAndNoOther() throws {
        for folder in ["app", "console"] {
            let site = try #require(StaticSite(folder: folder), "the \(folder) resources are missing")
            let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("Web/\(folder)").path
            let names = try FileManager.default.contentsOfDirectory(atPath: source).filter { !$0.hasPrefix(".") }
            #expect(Set(site.files.keys) == Set(names))
            for name in names {
                let bytes = try Data(contentsOf: URL(fileURLWithPath: source + "/" + name))
                #expect(site.files[name]?.body == bytes, "\(folder)/\(name) differs from the source")
            }
        }
    }

    /// The aim: the app's JavaScript and CSS together at most 200 KiB, uncompressed.
    @Test func theAppStaysWithinItsSizeAim() throws {
        let app = try #require(StaticSite(folder: "app"))
        let console = try #require(StaticSite(folder: "console"))
        print("web client: JavaScript and CSS \(app.scriptAndStyleBytes) bytes; console \(console.scriptAndStyleBytes) bytes")
        #expect(app.scriptAndStyleBytes <= 200 * 1024)
    }
}
