import Foundation
import IMClient
import MatrixClient
import Testing
import TestSupport

/// The test homeserver itself: started once per run, registering accounts with its shared secret.
@Suite("Synapse test homeserver")
struct SynapseTestServerTests {
    @Test func startsOncePerRunAndAnswersOnLoopback() async throws {
        let first = try await SynapseTestServer.shared()
        let second = try await SynapseTestServer.shared()
        #expect(first === second)
        #expect(first.baseURL.hasPrefix("http://127.0.0.1:"))
        let client = MatrixClient(homeserver: first.baseURL, transport: SynapseTestServer.transport)
        let versions = try await client.versions()
        #expect(versions.contains { $0.hasPrefix("v1.") })
        print("Synapse started in \(first.startDuration)")
    }

    @Test func registersAccountsWithTheSharedSecret() async throws {
        let server = try await SynapseTestServer.shared()
        let name = server.newUsername("registered")
        let session = try await server.register(name, password: "pw-\(name)")
        #expect(session.userID == server.userID(name))
        let client = MatrixClient(homeserver: server.baseURL, transport: SynapseTestServer.transport)
        let login = try await client.login(user: name, password: "pw-\(name)")
        #expect(login.userID == session.userID)
        #expect(login.accessToken != session.accessToken)
    }
}
