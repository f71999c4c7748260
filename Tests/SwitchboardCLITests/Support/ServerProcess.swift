#if canImport(Glibc)
import Glibc
#endif
import Foundation
import TestSupport
import Testing

extension SpawnedProcess {
    /// The server's `http://127.0.0.1:PORT` once `log` (standard error unless given) says
    /// it listens; throws with what the process said when it ended first.
    func serverURL(in log: (() -> String)? = nil) async throws -> String {
        let text = log ?? { self.errors }
        var url: String?
        try await eventually("the server listening") {
            url = ShippedUp.url(after: "server listening on http://127.0.0.1:", in: text())
            return url != nil || exitStatus != nil
        }
        guard let url else { throw TestFailure("the process ended: \(errors)") }
        return url
    }

    /// Runs `body`, then kills the process if it still runs, however `body` ends.
    func whileRunning(_ body: () async throws -> Void) async throws {
        try await ensuring(body) {
            if exitStatus == nil { _ = try? await stop(SIGKILL) }
        }
    }
}
