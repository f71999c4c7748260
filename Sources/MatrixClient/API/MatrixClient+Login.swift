import Foundation
import IMClient

/// Logging in: by password (`m.login.password`), or with a given access token.
extension MatrixClient {
    /// The API versions the homeserver speaks (no login needed): a reachability check.
    public func versions() async throws(IMClientError) -> [String] {
        var request = MatrixRequest("GET", "/_matrix/client/versions")
        request.authenticated = false
        return try await call(request, as: Versions.self).versions
    }

    /// Logs in as `user` (a localpart or a full `@user:server`) with `password`; reusing
    /// `deviceID` keeps the device, and with it the transaction ids the homeserver has
    /// seen from it (so a reply sent again after a restart is not sent twice).
    @discardableResult
    public func login(user: String, password: String, deviceID: String? = nil, deviceName: String? = nil)
        async throws(IMClientError) -> MatrixSession
    {
        var request = try MatrixRequest("POST", MatrixPath.client + "/login").json(PasswordLogin(
            identifier: .init(user: user), password: password, deviceID: deviceID,
            deviceName: deviceName))
        request.authenticated = false
        let answer = try await call(request, as: LoginAnswer.self)
        guard let userID = MatrixUserID(answer.userID) else {
            throw IMClientError(.badResponse, "\(homeserver) logged in a user id that is not one: \(answer.userID)")
        }
        let session = MatrixSession(userID: userID, accessToken: answer.accessToken, deviceID: answer.deviceID)
        use(session)
        return session
    }

    /// Adopts a given access token (and its device), asking the homeserver whose it is.
    @discardableResult
    public func login(accessToken: String, deviceID: String? = nil) async throws(IMClientError) -> MatrixSession {
        let placeholder = MatrixUserID("@unknown:unknown")!
        use(MatrixSession(userID: placeholder, accessToken: accessToken, deviceID: deviceID))
        let answer: WhoAmI
        do {
            answer = try await call(MatrixRequest("GET", MatrixPath.client + "/account/whoami"))
        } catch {
            use(nil)
            throw error
        }
        guard let userID = MatrixUserID(answer.userID) else {
            use(nil)
            throw IMClientError(.badResponse, "\(homeserver) names a user id that is not one: \(answer.userID)")
        }
        if let deviceID, let theirs = answer.deviceID, theirs != deviceID {
            use(nil)
            throw IMClientError(.invalidArgument,
                                "the access token belongs to device \(theirs), not \(deviceID): give the token's own device")
        }
        let session = MatrixSession(userID: userID, accessToken: accessToken, deviceID: answer.deviceID ?? deviceID)
        use(session)
        return session
    }

    /// Sets the logged-in user's display name.
    public func setDisplayName(_ name: String) async throws(IMClientError) {
        let user = try currentUser()
        let request = try MatrixRequest("PUT", MatrixPath.client + "/profile/" + MatrixPath.segment(user.rawValue)
                                        + "/displayname").json(["displayname": name])
        _ = try await retrying { () async throws(IMClientError) in try await self.perform(request) }
    }

    /// Ends this login on the homeserver.
    public func logout() async throws(IMClientError) {
        _ = try await perform(MatrixRequest("POST", MatrixPath.client + "/logout").json([String: String]()))
        use(nil)
    }
}

private struct Versions: Decodable { var versions: [String] }

private struct PasswordLogin: Encodable {
    struct Identifier: Encodable {
        var type = "m.id.user"
        var user: String
    }

    var type = "m.login.password"
    var identifier: Identifier
    var password: String
    var deviceID: String?
    var deviceName: String?

    enum CodingKeys: String, CodingKey {
        case type, identifier, password
        case deviceID = "device_id"
        case deviceName = "initial_device_display_name"
    }
}

private struct LoginAnswer: Decodable {
    var userID: String
    var accessToken: String
    var deviceID: String?

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case accessToken = "access_token"
        case deviceID = "device_id"
    }
}

private struct WhoAmI: Decodable {
    var userID: String
    var deviceID: String?

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case deviceID = "device_id"
    }
}
