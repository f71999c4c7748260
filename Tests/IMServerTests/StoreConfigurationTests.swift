import Foundation
import IMProtocol
import Logging
import TestSupport
import Testing

@testable import IMServer

/// `server.store` and `--store`: which store a server opens, and the errors of a wrong one.
@Suite struct StoreConfigurationTests {
    static func configuration(_ json: String) throws -> ServerConfiguration {
        try JSONDecoder().decode(ServerFileConfig.self, from: Data(json.utf8)).configuration()
    }

    @Test func sqliteIsTheDefaultAndAPostgresURLSelectsPostgreSQL() throws {
        #expect(try Self.configuration("{}").store == .sqlite)
        #expect(try Self.configuration(#"{"store": "sqlite"}"#).store == .sqlite)
        let url = "postgres://switchboard@db.example:5433/chat?sslmode=verify-full"
        #expect(try Self.configuration(#"{"store": "\#(url)", "store_connections": 32}"#).store == .postgres(url: url))
        #expect(try Self.configuration(#"{"store_connections": 32}"#).storeConnections == 32)
        #expect(StoreLocation("postgresql://x/y") == .postgres(url: "postgresql://x/y"))
    }

    @Test func anotherStoreIsRefusedNamingTheKeyWithoutItsPassword() throws {
        let error = #expect(throws: ServerFileConfig.Invalid.self) {
            try Self.configuration(#"{"store": "mysql://root:hunter2@db/chat"}"#)
        }
        #expect(error?.key == "store")
        #expect(error?.description.contains("hunter2") == false)
        #expect(error?.description.contains("mysql://root:***@db/chat") == true)
        #expect(ServerFileConfig.redacted("postgres://u:p%40ss@h/d") == "postgres://u:***@h/d")
        #expect(ServerFileConfig.redacted("postgres://u@h/d") == "postgres://u@h/d")
        let count = #expect(throws: ServerFileConfig.Invalid.self) { try Self.configuration(#"{"store_connections": 0}"#) }
        #expect(count?.key == "store_connections")
    }

    @Test func aDatabaseThatCannotBeReachedStopsStartUpWithoutThePassword() async throws {
        var config = TestServer.configuration(directory: TestServer.temporaryDirectory())
        defer { try? FileManager.default.removeItem(atPath: config.dataDirectory) }
        // A loopback port nothing listens on (the test cluster's password is not this one).
        config.store = .postgres(url: "postgresql://nobody:secret-word@127.0.0.1:1/none?connect_timeout=2")
        let error = await #expect(throws: ServerStartError.self) {
            _ = try await IMServerApp(configuration: config, logger: Logger(label: "t", sink: MemoryLogSink()))
        }
        #expect(error?.message.hasPrefix("cannot open the PostgreSQL database postgresql://nobody:***@127.0.0.1:1/none") == true)
        #expect(error?.message.contains("secret-word") == false)
    }
}
