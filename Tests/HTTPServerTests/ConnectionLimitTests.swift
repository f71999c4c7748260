#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HTTPServer
import Lifecycle
import Synchronization
import TestSupport
import Testing

/// One client cannot hold the server (issue 8, item 6): bodies and responses have
/// deadlines, and one address holds a bounded share of the connections. Deadlines run on
/// the server's clock, a `ManualTime` here: the test moves it, and the reaper (a thread
/// that looks once a second) cuts the late connection.
@Suite(.timeLimit(.minutes(2))) struct ConnectionLimitTests {
    static let ok = TestResponder { _ in .text("ok") }

    static func served(_ port: Int, source: String? = nil) async throws -> Bool {
        let client = try RawHTTPClient(port: port, source: source)
        try client.send(get("/"))
        return try await client.response().text == "ok"
    }

    @Test func aBodyThatTricklesInIsCutOffWhileOthersAreServed() async throws {
        let time = ManualTime()
        var configuration = testConfiguration()
        configuration.bodyTimeout = 5
        try await withHTTPServer(configuration, time: time, responder: Self.ok) { server in
            let slow = try RawHTTPClient(port: server.port)
            try slow.send("POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: 1000\r\nExpect: 100-continue\r\n\r\n")
            // The server has read the headers (and started the body's clock) once it asks for the body.
            let asked = try await slow.receive(atLeast: 25)
            #expect(String(decoding: asked, as: UTF8.self).hasPrefix("HTTP/1.1 100 Continue"))
            try slow.send(Array(repeating: UInt8(ascii: "x"), count: 10))
            #expect(try await Self.served(server.port))

            time.advance(by: .seconds(6))
            _ = try await slow.untilClosed()
            #expect(server.stats.bodyTimeouts == 1)
            #expect(try await Self.served(server.port))
        }
    }

    @Test func aReaderThatDoesNotTakeItsResponseIsCutOff() async throws {
        let time = ManualTime()
        var configuration = testConfiguration()
        configuration.sendTimeout = 10
        let big = Data(repeating: 0x61, count: 32 << 20)
        let responder = TestResponder { request in
            request.path == "/big" ? Response(status: 200, body: big) : .text("ok")
        }
        try await withHTTPServer(configuration, time: time, responder: responder) { server in
            let reader = try RawHTTPClient(port: server.port, receiveBuffer: 4096)
            try reader.send(get("/big"))
            // The response is on its way (and its clock running) once its first bytes arrive.
            _ = try await reader.receive(atLeast: 16)
            #expect(try await Self.served(server.port))

            time.advance(by: .seconds(11))
            // The server lets the connection go (what the client then sees of its socket
            // is up to the kernels: the rest of the response is never sent).
            try await eventually("the slow reader's connection is closed") {
                server.stats.sendTimeouts == 1 && server.stats.openConnections == 0
            }
            #expect(try await Self.served(server.port))
            reader.reset()
        }
    }

    @Test func oneAddressCannotHoldEveryConnection() async throws {
        var configuration = testConfiguration()
        configuration.connectionsPerAddress = 3
        try await withHTTPServer(configuration, responder: Self.ok) { server in
            var held: [RawHTTPClient] = []
            for _ in 0..<3 {
                let client = try RawHTTPClient(port: server.port)
                try client.send(get("/"))
                #expect(try await client.response().text == "ok")
                held.append(client)
            }
            let fourth = try RawHTTPClient(port: server.port)
            #expect(try await fourth.untilClosed().isEmpty)
            #expect(server.stats.refusedPerAddress == 1)
            // Another client is served meanwhile.
            #expect(try await Self.served(server.port, source: "127.0.0.2"))
            // Once one of the three goes, the address may connect again.
            held.removeFirst().close()
            try await eventually("a connection from 127.0.0.1 is served again") {
                (try? await Self.served(server.port)) == true
            }
        }
    }

    @Test func requestsThroughATrustedProxyAreCountedPerClient() async throws {
        var configuration = testConfiguration()
        configuration.connectionsPerAddress = 2
        configuration.trustedProxies = [IPAddressRange("127.0.0.1")!]
        let gate = Gate()
        let seen = Mutex<[(client: String, peer: String)]>([])
        let parked = EventLog<Bool>()
        let responder = TestResponder { request in
            seen.withLock { $0.append((request.remoteAddress, request.peerAddress)) }
            guard let deferred = request.deferResponse() else { return .text("no connection", status: 500) }
            gate.whenOpen { deferred.send(.text("woken")) }
            parked.record(true)
            return deferred.response
        }
        try await withHTTPServer(configuration, responder: responder) { server in
            func poll(for client: String) throws -> RawHTTPClient {
                let connection = try RawHTTPClient(port: server.port)
                try connection.send(get("/events", headers: ["X-Forwarded-For: 198.51.100.1, \(client)"]))
                return connection
            }
            let first = try poll(for: "203.0.113.1")
            let second = try poll(for: "203.0.113.1")
            _ = await parked.next(2)
            let third = try poll(for: "203.0.113.1")
            let refused = try await third.response()
            #expect(refused.status == 429)
            #expect(refused.header("Retry-After") == "1")
            #expect(server.stats.refusedForwarded == 1)
            // The proxy itself holds more than two connections, for another client.
            let other = try poll(for: "203.0.113.2")
            _ = await parked.next()
            gate.open()
            for connection in [first, second, other] { #expect(try await connection.response().text == "woken") }
            let addresses = seen.withLock { $0 }
            #expect(Set(addresses.map(\.client)) == ["203.0.113.1", "203.0.113.2"])
            #expect(addresses.allSatisfy { $0.peer == "127.0.0.1" })
        }
    }
}

@Suite struct ClientAddressTests {
    @Test func rangesMatchTheirAddressesOnly() throws {
        let block = try #require(IPAddressRange("10.1.0.0/16"))
        #expect(block.contains("10.1.255.7"))
        #expect(!block.contains("10.2.0.1"))
        #expect(block.contains("::ffff:10.1.2.3"))
        #expect(!block.contains("not an address"))
        let v6 = try #require(IPAddressRange("fd00::/8"))
        #expect(v6.contains("fd12:3456::1"))
        #expect(!v6.contains("fe80::1"))
        #expect(IPAddressRange("::1")?.contains("::1") == true)
        #expect(IPAddressRange("10.0.0.0/33") == nil)
        #expect(IPAddressRange("example.com") == nil)
    }
}

/// The HTTP server's error log must never stop the server (issue 8, item 13): a line it
/// cannot write (a full disk behind standard error) is dropped.
@Suite(.serialized) struct ErrorLogTests {
    @Test func aLineThatCannotBeWrittenIsDropped() throws {
        let full = open("/dev/full", O_WRONLY)
        try #require(full >= 0, "no /dev/full on this machine")
        let saved = dup(2)
        defer {
            dup2(saved, 2)
            close(saved)
            close(full)
        }
        dup2(full, 2)
        // With FileHandle.write this traps and takes the process down.
        HTTPServerConfiguration.standardErrorLog("a line for a full disk")
        HTTPServerConfiguration.standardErrorLog(String(repeating: "long ", count: 10_000))
    }
}
