import Foundation
import IMClient

/// Avatars' pictures, for terminals that draw them.
extension ChatEffectRunner {
    /// Fetches an avatar's image (kept here, or from the server) into the avatar cache
    /// (0600) and makes its picture ready; false when it cannot be drawn.
    func picture(_ key: String) async -> Bool {
        guard let pictures else { return false }
        let data: Data?
        if key.hasPrefix("local:") {
            data = store.avatar(of: String(key.dropFirst(6)))
        } else if let cached = store.avatarCache.data(for: key) {
            data = cached
        } else {
            data = try? await client?.media(key)
        }
        guard let data, (try? store.avatarCache.store(data, for: key)) != nil else { return false }
        return pictures.prepare(key, path: store.avatarCache.path(for: key))
    }
}
