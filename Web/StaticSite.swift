import Foundation
import HTTPServer
import SwitchboardCrypto

/// One folder of pages served as they are: the web client (`app`) or the operator
/// console (`console`), read once into memory and answered with the headers that keep a
/// page safe (``securityHeaders``).
///
/// The folders are the `WebAssets` target's resources: SwiftPM copies them beside the
/// binary (`Switchboard_WebAssets.resources/`), where ``init(folder:)`` finds them; a
/// build that lost them falls back to the source tree it was built from, and failing
/// both the listener answers 404 with what is missing, instead of stopping.
public struct StaticSite: Sendable {
    /// One file, ready to send.
    public struct File: Sendable {
        public let body: Data
        public let contentType: String
        /// A digest of the body: the answer's `ETag`.
        public let etag: String
    }

    /// The files by name (`index.html`, `main.js`); the folder is flat.
    public let files: [String: File]
    /// Where they were read from.
    public let directory: String

    /// The headers of every page and file: a Content-Security-Policy that allows
    /// scripts, styles and API calls from this origin only (no inline script or style,
    /// no framing), `nosniff`, no referrer, and no caching without revalidation.
    ///
    /// Images may come from https sites too: a profile's `avatar_url` may name one.
    public static let securityHeaders: [(String, String)] = [
        ("Content-Security-Policy",
         "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' https: blob:; "
            + "connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; "
            + "frame-ancestors 'none'"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("X-Frame-Options", "DENY"),
        ("Cross-Origin-Opener-Policy", "same-origin"),
        ("Cross-Origin-Resource-Policy", "same-origin"),
        ("Cache-Control", "no-cache"),
    ]

    static let contentTypes: [String: String] = [
        "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8",
        "css": "text/css; charset=utf-8", "svg": "image/svg+xml", "png": "image/png",
        "json": "application/json", "txt": "text/plain; charset=utf-8",
    ]

    /// The site of a resource folder (`app` or `console`), from beside the binary or,
    /// failing that, the source tree; nil when neither has it.
    public init?(folder: String) {
        for candidate in Self.candidates(folder) {
            if let site = try? StaticSite(directory: candidate) {
                self = site
                return
            }
        }
        return nil
    }

    /// The site of a directory's files (not its subfolders); throws when it cannot be read.
    public init(directory: String) throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
        var files: [String: File] = [:]
        for name in names.sorted() where !name.hasPrefix(".") {
            let path = directory + "/" + name
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue,
                  let type = Self.contentTypes[(name as NSString).pathExtension.lowercased()]
            else { continue }
            let body = try Data(contentsOf: URL(fileURLWithPath: path))
            let digest = Digest.sha256(Array(body)).prefix(12).map { String(format: "%02x", $0) }.joined()
            files[name] = File(body: body, contentType: type, etag: "\"\(digest)\"")
        }
        guard files["index.html"] != nil else { throw CocoaError(.fileReadNoSuchFile) }
        self.files = files
        self.directory = directory
    }

    /// Where the folder may be: the resources beside the running binary (or the test
    /// bundle), then the source tree this file was built from.
    static func candidates(_ folder: String) -> [String] {
        let bundleName = "Switchboard_WebAssets.resources"
        var places: [String] = []
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        places.append(executable.deletingLastPathComponent().appendingPathComponent(bundleName).path)
        places.append(Bundle.main.bundleURL.appendingPathComponent(bundleName).path)
        if let resources = Bundle.main.resourceURL { places.append(resources.appendingPathComponent(bundleName).path) }
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        return places.map { $0 + "/" + folder } + [source.appendingPathComponent(folder).path]
    }

    /// The answer for a file: 200 with its body, or 304 when `ifNoneMatch` names its
    /// digest; nil for a name the site does not have.
    public func response(for name: String, ifNoneMatch: String?, head: Bool = false) -> Response? {
        guard let file = files[name] else { return nil }
        var headers = HTTPHeaders()
        for (field, value) in Self.securityHeaders { headers.add(field, value) }
        headers.add("ETag", file.etag)
        if ifNoneMatch == file.etag { return Response(status: 304, headers: headers) }
        headers.add("Content-Type", file.contentType)
        return Response(status: 200, headers: headers, body: file.body)
    }

    /// Bytes of the site's JavaScript and CSS together (the aim: at most 200 KiB).
    public var scriptAndStyleBytes: Int {
        files.filter { $0.key.hasSuffix(".js") || $0.key.hasSuffix(".css") }.reduce(0) { $0 + $1.value.body.count }
    }

    /// The 404 a listener gives when its site's files are missing.
    public static func missing(_ folder: String) -> Response {
        var headers = HTTPHeaders()
        headers.add("Content-Type", "text/plain; charset=utf-8")
        for (field, value) in securityHeaders { headers.add(field, value) }
        let text = "the \(folder) pages are missing: keep Switchboard_WebAssets.resources beside the switchboard binary\n"
        return Response(status: 404, headers: headers, body: Data(text.utf8))
    }
}
