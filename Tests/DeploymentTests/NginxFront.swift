#if canImport(Glibc)
import Glibc
#endif
import Foundation
import TestSupport

/// A real nginx (Debian's) in front of server nodes, configured by `examples/nginx.conf`
/// itself: a private process with its own prefix, configuration and temporary files in a
/// folder of its own, listening on 127.0.0.1 on a free port, in the foreground (no
/// daemon, no master process, no system service).
///
/// The example is used as shipped except for what only a deployment knows: its upstream
/// lists `nodes`, its HTTPS server listens on the test's port without TLS (the test has
/// no certificate), and the redirect from port 80 is left out. nginx connects to the
/// nodes from 127.0.0.3, so the nodes see a proxy whose address is not the client's
/// (127.0.0.1) and must be told to trust it.
final class NginxFront: Sendable {
    static let binary = "/usr/sbin/nginx"
    /// The address nginx connects to the nodes from: list it in their trusted_proxies.
    static let proxyAddress = "127.0.0.3"

    static var example: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("examples/nginx.conf")
    }

    let folder: String
    let port: Int
    let process: SpawnedProcess

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts nginx in front of `nodes` (`host:port` each) and waits until it answers.
    static func start(nodes: [String]) async throws -> NginxFront {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw TestFailure("\(binary) is missing: `make test` installs Debian's nginx")
        }
        var lastFailure = ""
        // The port is free when chosen, and another program may take it before nginx
        // binds it: then nginx says so and another port is tried.
        for _ in 0..<3 {
            let front = try NginxFront(nodes: nodes)
            if try await front.answers() { return front }
            lastFailure = try await front.process.allErrors()
            front.remove()
        }
        throw TestFailure("nginx did not start: \(lastFailure)")
    }

    private init(nodes: [String]) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("nginx-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let socket = try LoopbackSocket()
        port = socket.port
        close(socket.descriptor)
        let site = try Self.site(from: String(contentsOf: Self.example, encoding: .utf8), nodes: nodes, port: port)
        try site.write(toFile: folder + "/switchboard.conf", atomically: true, encoding: .utf8)
        try Self.main(folder: folder).write(toFile: folder + "/nginx.conf", atomically: true, encoding: .utf8)
        process = try SpawnedProcess(Self.binary, ["-p", folder + "/", "-c", folder + "/nginx.conf", "-e", "stderr"])
    }

    /// True once nginx answers on its port; false when it exited instead.
    private func answers() async throws -> Bool {
        var answered = false
        try await eventually("nginx answering on 127.0.0.1:\(port)") {
            if process.exitStatus != nil { return true }
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(socket) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            answered = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            return answered
        }
        return answered && process.exitStatus == nil
    }

    /// Stops nginx and removes its folder.
    func stop() async {
        process.signal(SIGTERM)
        _ = await process.waitForExit()
        remove()
    }

    private func remove() {
        process.signal(SIGKILL)
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// The main configuration around the example: everything in `folder`, errors on
    /// standard error, the connection to the nodes from `proxyAddress` (with `proxyBind`).
    static func main(folder: String, proxyBind: Bool = true) -> String {
        """
        daemon off;
        master_process off;
        worker_processes 1;
        pid \(folder)/nginx.pid;
        error_log stderr warn;
        events { worker_connections 256; }
        http {
            access_log off;
            client_body_temp_path \(folder)/client_body;
            proxy_temp_path \(folder)/proxy;
            fastcgi_temp_path \(folder)/fastcgi;
            uwsgi_temp_path \(folder)/uwsgi;
            scgi_temp_path \(folder)/scgi;
            \(proxyBind ? "proxy_bind \(proxyAddress);" : "")
            include \(folder)/switchboard.conf;
        }

        """
    }

    /// The example with the test's nodes and port: its upstream's `server` lines become
    /// `nodes`, its TLS server's `listen` and `ssl_*` lines one plain `listen` on `port`,
    /// and its redirecting server (`return 308`) goes.
    static func site(from example: String, nodes: [String], port: Int) throws -> String {
        var output: [String] = []
        var block: [String] = []
        var depth = 0
        for line in example.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            let opening = depth
            depth += braceBalance(trimmed)
            if opening == 0 && depth == 0 {
                output.append(line)
                continue
            }
            block.append(line)
            guard depth == 0 else { continue }
            output += try rewrite(block, nodes: nodes, port: port)
            block = []
        }
        guard depth == 0, block.isEmpty else { throw TestFailure("examples/nginx.conf: unbalanced braces") }
        return output.joined(separator: "\n")
    }

    /// One top-level block of the example, rewritten.
    private static func rewrite(_ block: [String], nodes: [String], port: Int) throws -> [String] {
        let header = block[0].trimmingCharacters(in: .whitespaces)
        let top = { (line: String) in line.hasPrefix("    ") && !line.hasPrefix("     ") }
        if header.hasPrefix("upstream ") {
            let kept = block.filter { !(top($0) && $0.trimmingCharacters(in: .whitespaces).hasPrefix("server ")) }
            guard kept.count < block.count else { throw TestFailure("examples/nginx.conf: the upstream lists no server") }
            return [kept[0]] + nodes.map { "    server \($0);" } + kept.dropFirst()
        }
        guard header.hasPrefix("server ") || header == "server {" else { return block }
        if block.contains(where: { $0.contains("return 308") }) { return [] }
        let kept = block.filter { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            return !(top(line) && (trimmed.hasPrefix("listen ") || trimmed.hasPrefix("ssl_")))
        }
        return [kept[0], "    listen 127.0.0.1:\(port);"] + kept.dropFirst()
    }

    /// Opening minus closing braces on a line, outside quoted strings and comments.
    private static func braceBalance(_ line: String) -> Int {
        var balance = 0
        var quote: Character?
        for character in line {
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if character == "#" {
                break
            } else if character == "{" {
                balance += 1
            } else if character == "}" {
                balance -= 1
            }
        }
        return balance
    }
}
