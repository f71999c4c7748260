import Foundation
import IMClient
import IMProtocol
import SwitchboardCrypto

/// A Matrix bot's `profile:` applied after its login, as ``BotSetup`` applies it on
/// Switchboard: the nickname is the display name (set when it differs), the avatar file
/// is uploaded as the avatar (again only when the file changed). A Matrix profile has no
/// place for a signature or attributes: that is logged once per start, not an error.
struct MatrixProfile: Sendable {
    let link: MatrixLink
    let parts: BotParts

    /// The nickname in use afterwards, nil when the file gives none.
    func apply() async -> String? {
        guard let profile = parts.rules.now.definition.profile else { return nil }
        if profile.signature != nil || !profile.attrs.isEmpty {
            parts.logger.notice("bot \(parts.name): a Matrix profile has a display name and an avatar only; the "
                                + "profile's signature and attributes are not shown on Matrix")
        }
        do {
            if let nickname = profile.nickname, try await link.client.displayName() != nickname {
                try await link.client.setDisplayName(nickname)
            }
            if let path = profile.avatarPath, let image = try LocalFiles.read(path) {
                let hash = Digest.hex(Digest.sha256(image))
                if hash != parts.journal.state.avatarHash {
                    let type = ImageFormat.sniff(image)?.mimeType ?? "application/octet-stream"
                    try await link.client.setAvatarURL(try await link.client.upload(image, contentType: type))
                    parts.journal.record(.avatar(hash))
                }
            }
        } catch {
            parts.logger.warning("bot \(parts.name): could not apply the profile on Matrix: \(error)")
        }
        return profile.nickname
    }
}
