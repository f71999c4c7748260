import Foundation
import IMProtocol

/// Avatars and other stored media.
extension IMClient {
    /// The image of `user`'s avatar: from `cache` when it holds it, else downloaded (and
    /// then cached); `DefaultAvatar.png` when the user has none. Bytes that are no PNG,
    /// JPEG, GIF or WebP image (a page an avatar URL led to) are `badResponse`.
    public func avatar(of user: User, cache: AvatarCache? = nil) async throws(IMClientError) -> Data {
        guard !user.avatarURL.isEmpty else { return DefaultAvatar.png }
        let url = try absoluteURL(user.avatarURL)
        if let cached = cache?.data(for: url) { return cached }
        let data = try await download(url)
        guard ImageFormat.sniff(data) != nil else {
            throw IMClientError(.badResponse, "the avatar at \(url) is not a PNG, JPEG, GIF or WebP image")
        }
        // A cache that cannot be written only costs a download next time.
        try? cache?.store(data, for: url)
        return data
    }

    /// The bytes at a media URL: `/v1/media/<id>` on this server, or an absolute http(s) URL.
    public func media(_ url: String) async throws(IMClientError) -> Data {
        try await download(try absoluteURL(url))
    }

    /// `url` made absolute: paths are on this client's server.
    func absoluteURL(_ url: String) throws(IMClientError) -> String {
        if url.hasPrefix("/") { return serverURL + url }
        let lower = url.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
            throw IMClientError(.invalidArgument, "'\(url)' is not a media URL (an http(s) URL or a /v1/media/ path)")
        }
        return url
    }

    private func download(_ url: String) async throws(IMClientError) -> Data {
        let request = TransportRequest(
            method: "GET", url: url, timeout: configuration.requestTimeout,
            connectTimeout: configuration.connectTimeout)
        let response: TransportResponse
        do {
            response = try await transport.send(request)
        } catch let error as TransportError {
            throw IMClientError.transport(error, server: url)
        } catch {
            throw IMClientError(.cancelled, "download of \(url) cancelled")
        }
        guard response.status == 200 else {
            if response.status >= 400 {
                let error = Self.errorAnswer(response, for: APIRequest("GET", url), server: url)
                throw IMClientError(error.code, "cannot download \(url): \(error.api?.message ?? error.message)",
                                    api: error.api)
            }
            throw IMClientError(.badResponse, "cannot download \(url): HTTP \(response.status)")
        }
        return response.body
    }
}
