import Foundation
import HTTPServer
import IMProtocol
import TestSupport
import Testing

/// Two server nodes on one PostgreSQL database, in process, as a load balancer would
/// spread one deployment's clients over them.
@Suite struct ClusterTests {
    @Test func aMessageSentOnOneNodeAnswersAPollParkedOnTheOther() async throws {
        try await withNodes(2) { nodes in
            let (a, b) = (nodes[0], nodes[1])
            let (alice, _) = try await a.client.register("alice")
            _ = try await b.client.register("bob")
            let bob = try await b.client.login("bob")
            let cursor = try await bob.cursor()
            async let answer = bob.poll(cursor, timeout: 50)
            try await b.awaitParkedPolls(1)

            let sent = try await alice.message("user:bob", "across nodes")
            let batch = try await answer.decode(EventBatch.self)
            #expect(batch.events.compactMap(\.message) == [sent])
            #expect(batch.events.first?.conversation?.address == .user("alice"))
            // The cursor node B handed out works on node A, and the other way round.
            let onA = try await alice.with(token: bob.token).events(after: batch.cursor)
            #expect(onA.events.isEmpty && onA.cursor == batch.cursor)
            let reply = try await bob.message("user:alice", "back")
            let later = try await a.client.with(token: bob.token).events(after: batch.cursor, timeout: 30)
            #expect(later.events.compactMap(\.message) == [reply])
        }
    }

    @Test func aGroupMessageWakesMembersParkedOnBothNodes() async throws {
        try await withNodes(2) { nodes in
            let (a, b) = (nodes[0], nodes[1])
            let (owner, _) = try await a.client.register("owner")
            _ = try await owner.create(.group, "crew", join: .open)
            var members: [(TestClient, TestServer)] = []
            for index in 0..<4 {
                let node = index.isMultiple(of: 2) ? a : b
                let (member, _) = try await node.client.register("member\(index)")
                _ = try await member.join(.group, "crew")
                members.append((member, node))
            }
            var cursors: [String] = []
            for (member, _) in members { cursors.append(try await member.cursor()) }
            let (crew, starts) = (members.map(\.0), cursors)
            let answers = Task {
                try await withThrowingTaskGroup(of: [Message].self) { group in
                    for (member, cursor) in zip(crew, starts) {
                        group.addTask { try await member.poll(cursor, timeout: 50).decode(EventBatch.self).events.compactMap(\.message) }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            }
            try await a.awaitParkedPolls(2)
            try await b.awaitParkedPolls(2)
            let sent = try await owner.message("group:crew", "all hands")
            let received = try await answers.value
            #expect(received.count == 4 && received.allSatisfy { $0 == [sent] })
        }
    }

    @Test func aSecondPollOfTheSameLoginOnAnotherNodeEndsTheFirstWith409() async throws {
        try await withNodes(2) { nodes in
            let (a, b) = (nodes[0], nodes[1])
            let (alice, _) = try await a.client.register("alice")
            let cursor = try await alice.cursor()
            async let first = alice.poll(cursor, timeout: 50)
            try await a.awaitParkedPolls(1)

            let onB = TestClient(server: b, token: alice.token)
            async let second = onB.poll(cursor, timeout: 50)
            expectError(try await first, .conflict, reason: "poll_replaced")
            try await b.awaitParkedPolls(1)
            #expect(a.parkedPolls == 0)
            // And back: a poll on A ends the one now parked on B.
            async let third = alice.poll(cursor, timeout: 50)
            expectError(try await second, .conflict, reason: "poll_replaced")
            try await a.awaitParkedPolls(1)
            _ = try await onB.message("user:alice", "to myself")
            #expect(try await third.decode(EventBatch.self).events.count == 1)
        }
    }

    @Test func aLogoutOnOneNodeIsRefusedOnTheOtherAtOnce() async throws {
        try await withNodes(2) { nodes in
            let (a, b) = (nodes[0], nodes[1])
            let (alice, _) = try await a.client.register("alice")
            let onB = TestClient(server: b, token: alice.token)
            // Node B has the login in its cache now.
            expectStatus(try await onB.get("/v1/me"), 200)
            let cursor = try await onB.cursor()
            async let parked = onB.poll(cursor, timeout: 50)
            try await b.awaitParkedPolls(1)

            expectStatus(try await alice.send("POST", "/v1/logout"), 204)
            expectError(try await onB.get("/v1/me"), .unauthorized, reason: "logged_out")
            // Its parked poll on B is told too, without waiting for its time to run out.
            expectError(try await parked, .unauthorized, reason: "logged_out")
        }
    }

    @Test func aPasswordChangeOrASuspensionOnOneNodeEndsTheLoginsOnTheOther() async throws {
        try await withNodes(2) { nodes in
            let (a, b) = (nodes[0], nodes[1])
            let (alice, aliceUser) = try await a.client.register("alice")
            let (bob, _) = try await a.client.register("bob")
            let aliceOnB = TestClient(server: b, token: alice.token)
            let bobOnB = TestClient(server: b, token: bob.token)
            expectStatus(try await aliceOnB.get("/v1/me"), 200)
            expectStatus(try await bobOnB.get("/v1/me"), 200)

            let change = try await alice.send(
                "PUT", "/v1/me/password",
                json: PasswordChange(oldPassword: "correct horse battery", newPassword: "a brand new secret"))
            expectStatus(change, 200)
            expectError(try await aliceOnB.get("/v1/me"), .unauthorized, reason: "password_changed")

            let admin = try await a.localAdministrator()
            expectStatus(try await admin.send("POST", "/v1/admin/users/bob/suspend"), 200)
            expectError(try await bobOnB.get("/v1/me"), .unauthorized, reason: "suspended")
            #expect(aliceUser.username == "alice")
        }
    }

    @Test func failedLoginsCountOnEveryNode() async throws {
        try await withNodes(2, { config in
            config.loginLimits.failuresPerUser = 4
            config.loginLimits.baseLockout = 600
        }) { nodes in
            let (a, b) = (nodes[0], nodes[1])
            _ = try await a.client.register("alice")
            for node in [a, b, a, b] {
                let answer = try await node.client.send(
                    "POST", "/v1/login", json: LoginRequest(username: "alice", password: "a wrong guess"))
                expectError(answer, .unauthorized, reason: "bad_credentials")
            }
            // Four failures in all: the address is locked out of the account on both nodes.
            for node in [a, b] {
                let answer = try await node.client.send(
                    "POST", "/v1/login", json: LoginRequest(username: "alice", password: "correct horse battery"))
                expectError(answer, .rateLimited)
            }
        }
    }

    @Test func guessesSentToBothNodesAtOnceRunNoMoreChecksThanOneNodeWould() async throws {
        try await withNodes(2, { config in
            config.loginLimits.failuresPerUser = 5
            config.loginLimits.inFlightPerAddress = 1_000
        }) { nodes in
            _ = try await nodes[0].client.register("alice")
            func checks() async throws -> Int {
                var total = 0
                for node in nodes { total += try await node.metric("switchboard_password_checks_total") ?? 0 }
                return total
            }
            let before = try await checks()
            let answers = try await withThrowingTaskGroup(of: TestClient.Answer.self) { group in
                for index in 0..<40 {
                    let node = nodes[index % 2]
                    group.addTask {
                        try await node.client.send(
                            "POST", "/v1/login", json: LoginRequest(username: "alice", password: "guess \(index)"))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let ran = try await checks() - before
            #expect(ran <= 5, "\(ran) password checks for 40 parallel guesses over two nodes")
            #expect(answers.filter { $0.status == 401 }.count == ran)
            #expect(answers.filter { $0.status == 429 }.count == 40 - ran)
        }
    }
}
