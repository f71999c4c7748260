import IMClient
import TestSupport
import Testing
@testable import switchboard

@Suite("switchboard tail")
struct TailCommandTests {
    static let password = "correct horse battery"

    @Test func aNewMessageIsPrintedUntilTheCommandIsStopped() async throws {
        try await withServer { server in
            _ = try await server.client.register("alice", password: Self.password)
            _ = try await server.client.register("bob", password: Self.password)

            // Tail starts at the present: its first poll, without a cursor, fixes where.
            var sandbox = Sandbox()
            defer { sandbox.remove() }
            let (started, startedSignal) = AsyncStream<Void>.makeStream()
            sandbox.transport = InterceptingTransport(base: IMClient.sharedTransport) { request, response in
                if request.url.contains("/v1/events"), !request.url.contains("cursor=") { startedSignal.yield() }
                return response
            }
            let output = CapturedText()
            let errors = CapturedText()
            let context = sandbox.context(output: output, errors: errors, extra: ["SWITCHBOARD_PASSWORD": Self.password])
            let tail = Task {
                await CommandContext.$current.withValue(context) {
                    await CLI.main(["tail", "--server", server.baseURL, "--user", "bob"])
                }
            }
            defer { tail.cancel() }

            try await withHangGuard("tail's first poll") {
                for await _ in started { return }
            }
            let sender = Sandbox()
            defer { sender.remove() }
            let sent = await sender.run(["send", "--server", server.baseURL, "--user", "alice", "--to", "user:bob", "are you there?"],
                                        environment: ["SWITCHBOARD_PASSWORD": Self.password])
            #expect(sent.status == 0, "\(sent.errors)")
            try await withHangGuard("the message in tail's output") {
                await output.waitFor("\n")
            }
            tail.cancel()
            let status = try await withHangGuard("tail stopping") { await tail.value }

            let line = try #require(output.lines.first)
            #expect(line.hasSuffix(" user:alice alice: are you there?"))
            #expect(output.lines.count == 1)
            #expect(status == 0)
        }
    }
}
