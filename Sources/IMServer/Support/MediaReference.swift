import IMProtocol

/// A profile or group may show only media its changer uploaded: otherwise anyone could
/// keep someone else's replaced avatar alive (and fill their media budget) by showing it.
enum MediaReference {
    /// Throws 400 when `url` is a `/v1/media/` path that is not an upload of `userID`.
    static func check(_ url: String?, field: String, by userID: UserID, _ core: ServerServices) async throws {
        guard let url, url.hasPrefix("/v1/media/") else { return }
        let id = String(url.dropFirst("/v1/media/".count))
        guard id.utf8.count <= 64, let media = try await core.store.media(id: id), media.ownerID == userID else {
            throw APIError.invalid(field, "\(field): \(url) is not an image you uploaded (PUT /v1/me/avatar uploads one)")
        }
    }
}
