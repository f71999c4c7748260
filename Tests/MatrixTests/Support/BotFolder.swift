import Foundation
import TestSupport

/// A runner's folder for one test: `bots/` with one bot file (the runner makes `state/`).
enum BotFolder {
    /// Makes the folder with `bots/<name>.yaml` holding `text`; returns its path. The test
    /// removes it with ``remove(_:)`` when it ends.
    static func make(_ name: String, _ text: String) throws -> String {
        let folder = TestServer.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: folder + "/bots", withIntermediateDirectories: true)
        try text.write(toFile: folder + "/bots/\(name).yaml", atomically: true, encoding: .utf8)
        return folder
    }

    static func remove(_ folder: String) {
        try? FileManager.default.removeItem(atPath: folder)
    }
}
