import Foundation
import IMProtocol
import TestSupport
import Testing

@Suite(.sharedServers) struct AccountTests {
    @Test(arguments: TestStore.allCases) func registerAnswers201WithTheUserAndAWorkingToken(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let name = Names.unique("Reg")
        let answer = try await server.client.send(
            "POST", "/v1/register", json: RegisterRequest(username: name, password: "long enough pw", nickname: "Reggie"))
        expectStatus(answer, 201)
        let auth = try answer.decode(AuthResponse.self)
        #expect(auth.user.username == name.lowercased())
        #expect(auth.user.nickname == "Reggie")
        #expect(auth.user.isBot == false)
        #expect(auth.expiresAt != nil)
        let me = try await server.client.with(token: auth.token).get("/v1/me")
        expectStatus(me, 200)
        #expect(try me.decode(User.self).id == auth.user.id)
    }

    @Test(arguments: TestStore.allCases) func nicknameDefaultsToTheUsernameAndBotLoginsDoNotExpire(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let name = Names.unique("bot")
        try await server.createAccount(name, password: "long enough pw", bot: true)
        let answer = try await server.client.send(
            "POST", "/v1/login", json: LoginRequest(username: name, password: "long enough pw"))
        expectStatus(answer, 200)
        let auth = try answer.decode(AuthResponse.self)
        #expect(auth.user.nickname == name)
        #expect(auth.user.isBot)
        #expect(auth.expiresAt == nil)
    }

    @Test(arguments: TestStore.allCases) func registeringATakenNameIsAConflictWhateverItsCase(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (_, user) = try await server.client.newUser("taken")
        let again = try await server.client.send(
            "POST", "/v1/register", json: RegisterRequest(username: user.username.uppercased(), password: "another password"))
        expectError(again, .conflict, field: "username")
    }

    @Test(arguments: TestStore.allCases) func loginWithADeviceReturnsASecondWorkingToken(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (first, user) = try await server.client.newUser("login")
        let answer = try await server.client.send(
            "POST", "/v1/login",
            json: LoginRequest(username: user.username.uppercased(), password: "correct horse battery", device: "laptop"))
        expectStatus(answer, 200)
        let auth = try answer.decode(AuthResponse.self)
        #expect(auth.user.id == user.id)
        #expect(auth.token != first.token)
        expectStatus(try await server.client.with(token: auth.token).get("/v1/me"), 200)
        // A login with a new device leaves the registration's token alone.
        expectStatus(try await first.get("/v1/me"), 200)
    }

    @Test(arguments: TestStore.allCases) func wrongPasswordAndUnknownUserGetTheSameAnswer(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (_, user) = try await server.client.newUser("guess")
        let wrong = try await server.client.send(
            "POST", "/v1/login", json: LoginRequest(username: user.username, password: "not the password"))
        let unknown = try await server.client.send(
            "POST", "/v1/login", json: LoginRequest(username: Names.unique("nobody"), password: "not the password"))
        expectError(wrong, .unauthorized, reason: "bad_credentials")
        expectError(unknown, .unauthorized, reason: "bad_credentials")
        #expect(wrong.error?.message == unknown.error?.message)
    }

    @Test(arguments: TestStore.allCases) func logoutEndsOnlyThatLogin(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (_, user) = try await server.client.newUser("logout")
        let phone = try await server.client.login(user.username, device: "phone")
        let laptop = try await server.client.login(user.username, device: "laptop")
        expectStatus(try await phone.send("POST", "/v1/logout"), 204)
        expectError(try await phone.get("/v1/me"), .unauthorized, reason: "logged_out")
        expectStatus(try await laptop.get("/v1/me"), 200)
    }

    @Test(arguments: TestStore.allCases) func patchMeChangesOnlyTheGivenFieldsAndOthersSeeThem(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, user) = try await server.client.newUser("patch")
        let (bob, _) = try await server.client.newUser("viewer")
        let first = try await alice.send(
            "PATCH", "/v1/me",
            json: ProfileUpdate(nickname: "Alice A.", avatarURL: "https://example.com/a.png", signature: "hello", attrs: ["city": "Berlin"]))
        expectStatus(first, 200)
        let second = try await alice.send("PATCH", "/v1/me", json: ProfileUpdate(signature: "changed"))
        expectStatus(second, 200)
        let me = try await alice.get("/v1/me").decode(User.self)
        #expect(me.nickname == "Alice A.")
        #expect(me.avatarURL == "https://example.com/a.png")
        #expect(me.signature == "changed")
        #expect(me.attrs == ["city": "Berlin"])
        let seen = try await bob.get("/v1/users/\(user.username)").decode(User.self)
        #expect(seen == me)
    }

    @Test(arguments: TestStore.allCases) func patchMeRejectsAnAvatarURLThatIsNotHTTPOrMedia(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, _) = try await server.client.newUser("badurl")
        let answer = try await alice.send("PATCH", "/v1/me", json: ProfileUpdate(avatarURL: "javascript:alert(1)"))
        expectError(answer, .invalidRequest, field: "avatar_url")
    }

    @Test(arguments: TestStore.allCases) func passwordChangeIssuesANewTokenAndEndsTheOldLogins(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, user) = try await server.client.newUser("pw")
        let other = try await server.client.login(user.username, device: "tablet")
        let answer = try await alice.send(
            "PUT", "/v1/me/password",
            json: PasswordChange(oldPassword: "correct horse battery", newPassword: "a brand new password"))
        expectStatus(answer, 200)
        let fresh = alice.with(token: try answer.decode(AuthResponse.self).token)
        expectStatus(try await fresh.get("/v1/me"), 200)
        expectError(try await alice.get("/v1/me"), .unauthorized, reason: "password_changed")
        expectError(try await other.get("/v1/me"), .unauthorized, reason: "password_changed")
        let oldLogin = try await server.client.send(
            "POST", "/v1/login", json: LoginRequest(username: user.username, password: "correct horse battery"))
        expectError(oldLogin, .unauthorized)
        _ = try await server.client.login(user.username, password: "a brand new password")
    }

    @Test(arguments: TestStore.allCases) func passwordChangeNeedsTheOldPasswordAndAValidNewOne(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, _) = try await server.client.newUser("pw2")
        let wrongOld = try await alice.send(
            "PUT", "/v1/me/password", json: PasswordChange(oldPassword: "not my password", newPassword: "a brand new password"))
        expectError(wrongOld, .forbidden, field: "old_password")
        let short = try await alice.send(
            "PUT", "/v1/me/password", json: PasswordChange(oldPassword: "correct horse battery", newPassword: "short"))
        expectError(short, .invalidRequest, field: "password")
        expectStatus(try await alice.get("/v1/me"), 200)
    }

    @Test(arguments: ImageSample.all)
    func avatarUploadIsRecognisedFromItsBytesAndServedWithAnETag(image: ImageSample) async throws {
        let server = try SharedServer.current(.sqlite)
        let (alice, _) = try await server.client.newUser("avatar-\(image.name)")
        // The declared type is deliberately wrong: only the bytes count.
        let upload = try await alice.send(
            "PUT", "/v1/me/avatar", body: Data(image.bytes), headers: [("Content-Type", "text/plain")])
        expectStatus(upload, 200)
        let stored = try upload.decode(AvatarUpload.self)
        #expect(stored.media.contentType == image.type)
        #expect(stored.media.size == image.bytes.count)
        #expect(stored.media.url == "/v1/media/\(stored.media.id)")
        #expect(stored.user.avatarURL == stored.media.url)
        #expect(try await alice.get("/v1/me").decode(User.self).avatarURL == stored.media.url)

        // Served to anyone, without a login.
        let served = try await server.client.get(stored.media.url)
        expectStatus(served, 200)
        #expect([UInt8](served.body) == image.bytes)
        #expect(served.header("Content-Type") == image.type)
        let etag = try #require(served.header("ETag"))
        let again = try await server.client.send("GET", stored.media.url, headers: [("If-None-Match", etag)])
        expectStatus(again, 304)
        #expect(again.body.isEmpty)
        #expect(again.header("ETag") == etag)
    }

    @Test(arguments: TestStore.allCases) func avatarBetweenTheJSONLimitAndTwoMebibytesIsAccepted(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, _) = try await server.client.newUser("bigavatar")
        let bytes = ImageBytes.png + Array(repeating: 1, count: Limits.avatarBytes - ImageBytes.png.count)
        let upload = try await alice.send("PUT", "/v1/me/avatar", body: Data(bytes), headers: [("Content-Type", "image/png")])
        expectStatus(upload, 200)
        #expect(try upload.decode(AvatarUpload.self).media.size == Limits.avatarBytes)
    }

    @Test(arguments: TestStore.allCases) func avatarThatIsNotAnImageIsUnsupportedMediaType(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, _) = try await server.client.newUser("notimage")
        let answer = try await alice.send(
            "PUT", "/v1/me/avatar", body: Data("<svg xmlns='http://www.w3.org/2000/svg'/>".utf8),
            headers: [("Content-Type", "image/png")])
        expectError(answer, .unsupportedMediaType)
        #expect(try await alice.get("/v1/me").decode(User.self).avatarURL == "")
    }

    @Test(arguments: TestStore.allCases) func avatarOverTwoMebibytesIsPayloadTooLarge(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, _) = try await server.client.newUser("hugeavatar")
        let bytes = ImageBytes.png + Array(repeating: 1, count: Limits.avatarBytes + 1 - ImageBytes.png.count)
        let answer = try await alice.send("PUT", "/v1/me/avatar", body: Data(bytes), headers: [("Content-Type", "image/png")])
        expectError(answer, .payloadTooLarge)
    }

    @Test(arguments: TestStore.allCases) func emptyAvatarIsInvalid(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (alice, _) = try await server.client.newUser("emptyavatar")
        let answer = try await alice.send("PUT", "/v1/me/avatar", body: Data(), headers: [("Content-Type", "image/png")])
        expectError(answer, .invalidRequest)
    }

    @Test(arguments: TestStore.allCases) func unknownMediaIsNotFound(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        expectError(try await server.client.get("/v1/media/doesnotexist"), .notFound)
    }
}
