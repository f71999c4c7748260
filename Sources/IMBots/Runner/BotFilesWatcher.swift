import Foundation
import Lifecycle

/// Looks at the bots folder every `interval` on the runner's clock and calls `changed`
/// when a bot file was added, removed or modified (by size and modification time).
struct BotFilesWatcher: Sendable {
    let directory: String
    let interval: Duration
    let time: any TimeSource

    /// Watches until cancelled, starting from the folder as it is now.
    func run(changed: @Sendable () -> Void) async {
        var last = Self.fingerprint(directory)
        while true {
            do {
                try await time.sleep(for: interval)
            } catch {
                return
            }
            let current = Self.fingerprint(directory)
            if current != last {
                last = current
                changed()
            }
        }
    }

    /// Name → size and modification time of every bot file.
    static func fingerprint(_ directory: String) -> [String: String] {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: directory) else { return [:] }
        var result: [String: String] = [:]
        for name in names where name.hasSuffix(".yaml") || name.hasSuffix(".yml") {
            let attributes = try? manager.attributesOfItem(atPath: directory + "/" + name)
            let size = (attributes?[.size] as? NSNumber)?.intValue ?? -1
            let modified = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            result[name] = "\(size)@\(modified)"
        }
        return result
    }
}
