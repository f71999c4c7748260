import Foundation
#if canImport(Glibc)
import Glibc
#endif
import IMClient
import IMProtocol
import TestSupport
import Testing

/// Text from other people cannot steer the terminal of someone reading it with the
/// command line: the real `switchboard` prints `tail` and `group info` through one line
/// writer that lets no carriage return, other control character or bidi control through
/// (a message "hi\rbob: I agree" must not print a line that seems to be bob's).
@Suite("spoofed lines in the command line")
struct SpoofedLinesTests {
    static let password = "correct horse battery"

    /// The bytes no printed line may hold: CR, ESC, BEL and the bidi controls (embedding,
    /// override, isolate, mark) in UTF-8.
    static func steering(_ bytes: [UInt8]) -> [String] {
        var found: [String] = []
        if bytes.contains(0x0D) { found.append("CR") }
        if bytes.contains(0x1B) { found.append("ESC") }
        if bytes.contains(0x07) { found.append("BEL") }
        let text = String(decoding: bytes, as: UTF8.self)
        for scalar in text.unicodeScalars where (0x202A...0x202E).contains(scalar.value)
            || (0x2066...0x2069).contains(scalar.value) || scalar.value == 0x200E || scalar.value == 0x200F
        {
            found.append("U+" + String(scalar.value, radix: 16, uppercase: true))
        }
        return found
    }

    @Test func tailAndGroupInfoPrintNoCarriageReturnNorBidiControlFromOthers() async throws {
        let binary = try #require(switchboardExecutable, "build the switchboard executable first (swift build)")
        try await withServer { server in
            let folder = TestServer.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let mallory = IMClient(serverURL: server.baseURL, transport: TestClient.sharedTransport)
            try await mallory.register(username: "mallory", password: Self.password)
            try await IMClient(serverURL: server.baseURL, transport: TestClient.sharedTransport)
                .register(username: "alice", password: Self.password)
            // A nickname cannot carry them at all: the server refuses.
            await #expect(throws: IMClientError.self) {
                try await mallory.updateProfile(ProfileUpdate(nickname: "bob\u{202E}"))
            }
            try await mallory.createGroup(
                name: "spoof", description: "our group\r2026-11-29 12:00:00 group:spoof admin: send me your password\u{202E}txt.exe\nname: official",
                join: .open)
            let environment = ProcessInfo.processInfo.environment.merging([
                "SWITCHBOARD_HOME": folder + "/home", "SWITCHBOARD_PASSWORD": Self.password,
            ]) { $1 }

            // group info, as alice.
            let infoLog = folder + "/info.log"
            let info = try SpawnedProcess(
                binary, ["group", "info", "spoof", "--server", server.baseURL, "--user", "alice"], environment: environment,
                output: .appended(toFile: infoLog))
            #expect(await info.waitForExit() == 0)
            let infoBytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: infoLog)))
            #expect(Self.steering(infoBytes).isEmpty, "group info printed \(Self.steering(infoBytes))")
            let infoLines = String(decoding: infoBytes, as: UTF8.self).split(separator: "\n").map(String.init)
            #expect(infoLines.contains("description: our group\u{FFFD}2026-11-29 12:00:00 group:spoof admin: send me your passwordtxt.exe"))
            // The description's own line is indented: it cannot pass for a field.
            #expect(infoLines.contains("    name: official"))
            #expect(infoLines.first == "name: spoof")

            // tail, as alice, in the group: mallory's message arrives while it runs.
            let alice = IMClient(serverURL: server.baseURL, transport: TestClient.sharedTransport)
            try await alice.login(username: "alice", password: Self.password)
            try await alice.joinGroup("spoof")
            let tailLog = folder + "/tail.log"
            let tail = try SpawnedProcess(
                binary, ["tail", "group:spoof", "--server", server.baseURL, "--user", "alice"], environment: environment,
                output: .appended(toFile: tailLog))
            try await server.awaitParkedPolls(1)
            try await mallory.send("hi\r2026-11-29 12:00:01 group:spoof alice: I agree\u{202E}\u{2066}gnp.exe\u{2069}", to: .group("spoof"))
            try await eventually("the message in tail's output") {
                (try? String(contentsOfFile: tailLog, encoding: .utf8))?.contains("mallory:") == true
            }
            tail.signal(SIGINT)
            _ = await tail.waitForExit()
            let tailBytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: tailLog)))
            #expect(Self.steering(tailBytes).isEmpty, "tail printed \(Self.steering(tailBytes))")
            let printed = String(decoding: tailBytes, as: UTF8.self).split(separator: "\n").map(String.init)
            let line = try #require(printed.first { $0.contains("mallory:") })
            #expect(line.hasSuffix(" group:spoof mallory: hi\u{FFFD}2026-11-29 12:00:01 group:spoof alice: I agreegnp.exe"))
            #expect(!printed.contains { $0.contains("alice: I agree") && !$0.contains("mallory:") })
        }
    }
}
