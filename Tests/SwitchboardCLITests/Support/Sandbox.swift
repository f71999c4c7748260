import Foundation
import IMClient
@testable import switchboard

/// What one run of the command line did.
struct CLIResult: Sendable {
    var status: Int32
    var output: String
    var errors: String

    /// Standard output's lines.
    var outputLines: [String] { Self.lines(output) }
    /// Standard error's lines.
    var errorLines: [String] { Self.lines(errors) }

    private static func lines(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }
}

/// A temporary folder for one test (made on the first write): files to write, a
/// `SWITCHBOARD_HOME` of its own, an environment holding nothing else, and no terminal
/// to ask passwords at.
struct Sandbox: Sendable {
    /// The folder (absolute).
    let directory: String
    /// What `${VAR}` and the commands read; only `SWITCHBOARD_HOME` to start with.
    var environment: [String: String]
    /// How client commands reach the server.
    var transport: any HTTPTransport = IMClient.sharedTransport
    /// The clients' configuration.
    var client = IMClient.Configuration()

    init() {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("switchboard-cli-\(UUID().uuidString)").path
        environment = ["SWITCHBOARD_HOME": directory + "/home"]
    }

    /// The absolute path of `relative`.
    func path(_ relative: String) -> String { directory + "/" + relative }

    /// Writes `text` to `relative` (folders created); returns the absolute path.
    @discardableResult
    func write(_ relative: String, _ text: String) throws -> String {
        let file = path(relative)
        try FileManager.default.createDirectory(
            atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// The context a run gets: this sandbox's environment, plus `extra`.
    func context(output: CapturedText, errors: CapturedText, extra: [String: String]) -> CommandContext {
        CommandContext(environment: environment.merging(extra) { _, new in new },
                       output: output, errors: errors, askSecret: { _ in nil },
                       transport: transport, client: client)
    }

    /// Runs `switchboard ARGV...` in this sandbox.
    func run(_ argv: [String], environment extra: [String: String] = [:]) async -> CLIResult {
        let output = CapturedText()
        let errors = CapturedText()
        let status = await CommandContext.$current.withValue(context(output: output, errors: errors, extra: extra)) {
            await CLI.main(argv)
        }
        return CLIResult(status: status, output: output.text, errors: errors.text)
    }

    /// Removes the folder.
    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}
