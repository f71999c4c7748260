import Foundation
import IMClient
import IMProtocol
import Synchronization
import TestSupport
import Testing

@Suite("switchboard send")
struct SendCommandTests {
    static let password = "correct horse battery"

    /// The messages of alice's and bob's direct conversation, as bob sees them.
    static func history(on server: TestServer) async throws -> [Message] {
        let bob = IMClient(serverURL: server.baseURL)
        _ = try await bob.login(username: "bob", password: password)
        return try await bob.history(.user("alice")).messages
    }

    @Test func aSentMessageIsInTheHistoryAndTheLoginIsReused() async throws {
        try await withServer { server in
            _ = try await server.client.register("alice", password: Self.password)
            _ = try await server.client.register("bob", password: Self.password)
            let sandbox = Sandbox()
            defer { sandbox.remove() }

            let first = await sandbox.run(["send", "--server", server.baseURL, "--user", "alice", "--to", "user:bob", "hello", "bob"],
                                          environment: ["SWITCHBOARD_PASSWORD": Self.password])
            // No password this time: the login saved by the first command is used.
            let second = await sandbox.run(["send", "--server", server.baseURL, "--to", "user:bob", "again"])

            #expect(first.status == 0)
            #expect(first.outputLines.first?.hasPrefix("sent to user:bob (message ") == true)
            #expect(second.status == 0, "\(second.errors)")
            let texts = try await Self.history(on: server).map(\.text)
            #expect(texts == ["again", "hello bob"])
        }
    }

    @Test func aSendWhoseAnswerIsLostIsRetriedWithoutDoubling() async throws {
        try await withServer { server in
            _ = try await server.client.register("alice", password: Self.password)
            _ = try await server.client.register("bob", password: Self.password)
            var sandbox = Sandbox()
            defer { sandbox.remove() }
            let posts = Mutex(0)
            sandbox.transport = InterceptingTransport(base: IMClient.sharedTransport) { request, response in
                guard request.method == "POST", request.url.hasSuffix("/messages") else { return response }
                let attempt = posts.withLock { count in
                    count += 1
                    return count
                }
                // The server has stored the message; the answer never arrives.
                if attempt == 1 { throw TransportError(code: .connectionLost, message: "connection reset (in the test)") }
                return response
            }
            sandbox.client = IMClient.Configuration(sleep: { _ in })

            let result = await sandbox.run(["send", "--server", server.baseURL, "--user", "alice", "--to", "user:bob", "only once"],
                                           environment: ["SWITCHBOARD_PASSWORD": Self.password])

            #expect(result.status == 0, "\(result.errors)")
            #expect(posts.withLock { $0 } == 2)
            let texts = try await Self.history(on: server).map(\.text)
            #expect(texts == ["only once"])
        }
    }

    @Test func aWrongPasswordExitsOneAndSaysSo() async throws {
        try await withServer { server in
            _ = try await server.client.register("alice", password: Self.password)
            let sandbox = Sandbox()
            defer { sandbox.remove() }

            let result = await sandbox.run(["send", "--server", server.baseURL, "--user", "alice", "--to", "user:bob", "hi"],
                                           environment: ["SWITCHBOARD_PASSWORD": "not the password"])

            #expect(result.status == 1)
            #expect(result.errorLines.first?.hasPrefix("switchboard: wrong password for alice") == true)
        }
    }

    @Test func withoutAPasswordOrTerminalItSaysWhatToSet() async throws {
        try await withServer { server in
            let sandbox = Sandbox()
            defer { sandbox.remove() }

            let result = await sandbox.run(["send", "--server", server.baseURL, "--user", "alice", "--to", "user:bob", "hi"])

            #expect(result.status == 2)
            #expect(result.errorLines == ["switchboard: no password: set SWITCHBOARD_PASSWORD or run in a terminal to be asked"])
        }
    }

    @Test func anUnreachableServerExitsOneAndNamesTheServer() async throws {
        let port = try ClosedPort()
        defer { port.close() }
        let url = "http://127.0.0.1:\(port.number)"
        let sandbox = Sandbox()
        defer { sandbox.remove() }

        let result = await sandbox.run(["send", "--server", url, "--user", "alice", "--to", "user:bob", "hi"],
                                       environment: ["SWITCHBOARD_PASSWORD": Self.password])

        #expect(result.status == 1)
        #expect(result.errorLines.first?.hasPrefix("switchboard: server not reachable at \(url)") == true)
    }

    @Test func aBadAddressIsAUsageError() async {
        let result = await Sandbox().run(["send", "--user", "alice", "--to", "bob", "hi"])

        #expect(result.status == 2)
        #expect(result.errorLines.first?.hasPrefix("switchboard: --to 'bob' is not an address") == true)
    }
}
