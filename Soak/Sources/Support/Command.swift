import Foundation
import TestSupport

/// Runs a system program to its end (mount, mkfs, e2fsck, `switchboard user add`); its
/// output, or a failure when its exit status is not one of `statuses`.
@discardableResult
func command(_ program: String, _ arguments: [String], environment: [String: String] = [:],
             accepting statuses: Set<Int32> = [0], patience: Duration = .seconds(120)) async throws -> String {
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("soak-command-\(UUID().uuidString).txt").path
    defer { try? FileManager.default.removeItem(atPath: output) }
    let process = try SpawnedProcess.logging(to: output, program, arguments, environment: environment)
    let status: Int32
    do {
        status = try await withHangGuard("\(program) to finish", hangGuard: patience) { await process.waitForExit() }
    } catch {
        _ = try? await process.stop(SIGKILL)
        throw SoakFailure("\(program) \(arguments.joined(separator: " ")) did not finish within \(patience)")
    }
    let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    guard statuses.contains(status) else {
        throw SoakFailure("\(program) \(arguments.joined(separator: " ")) exited with \(status): \(text.prefix(500))")
    }
    return text
}
