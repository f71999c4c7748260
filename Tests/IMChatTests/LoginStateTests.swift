import IMChat
import IMClient
import IMProtocol
import Testing

/// The Login and Register screens driven by keys, without a terminal.
@Suite struct LoginStateTests {
    @Test func startAsksForTheLastUserAndPrefillsTheirName() {
        var model = Fixture.model()
        #expect(model.start() == [.loadLastUser])
        _ = model.handle(.result(.lastUser("alice", Fixture.alice)))
        #expect(model.login.username.text == "alice")
        #expect(model.login.focus == .password)
        #expect(model.screenText.contains("Alice Liddell (@alice), welcome back"))
        #expect(model.screenText.contains("AL"))
    }

    @Test func emptyFieldsWarnInsteadOfLoggingIn() {
        var model = Fixture.model()
        #expect(model.press(.enter) == [])
        #expect(model.login.warning == "Enter your username.")
        model.type("alice")
        #expect(model.login.warning == nil)
        #expect(model.press(.enter) == [])
        #expect(model.login.warning == "Enter your password.")
        #expect(model.login.focus == .password)
    }

    @Test func loggingInWaitsThenShowsTheFailureWithItsReasonAndGoesBack() {
        var model = Fixture.model()
        model.type("Alice")
        model.press(.tab)
        model.type("secret-password")
        let effects = model.press(.enter)
        #expect(effects.contains(.login(username: "alice", password: "secret-password")))
        #expect(model.login.phase == .waiting)
        #expect(model.screenText.contains("Logging in as alice…"))
        #expect(model.press(.character("x")) == [])  // keys wait too
        _ = model.handle(.result(.loginFailed("wrong password for alice (or no account with that name)")))
        #expect(model.screenText.contains("Login failed"))
        #expect(model.screenText.contains("wrong password for alice"))
        model.press(.enter)
        #expect(model.login.phase == .editing)
        #expect(model.screen == .login)
    }

    @Test func leavingTheUsernameFieldLooksUpThatUsersSavedAvatar() {
        var model = Fixture.model()
        model.type("bob")
        #expect(model.press(.tab) == [.lookUpLocalProfile("bob")])
        _ = model.handle(.result(.localProfile(username: "bob", Fixture.bob)))
        #expect(model.login.savedProfile == Fixture.bob)
        #expect(model.screenText.contains("Bob (@bob), welcome back"))
        // An answer for a name no longer in the field is dropped.
        model.press(.backTab)
        model.press(.backspace)
        model.press(.tab)
        _ = model.handle(.result(.localProfile(username: "bob", Fixture.bob)))
        #expect(model.login.savedProfile == nil)
    }

    @Test func passwordsShowAsBullets() {
        var model = Fixture.model()
        model.press(.tab)
        model.type("hunter22")
        #expect(model.screenText.contains("••••••••"))
        #expect(!model.screenText.contains("hunter22"))
    }

    @Test func registerChecksEmptyFieldsLengthAndMismatchBeforeAskingTheServer() {
        var model = Fixture.model()
        model.press(.control("r"))
        #expect(model.screen == .register)
        model.press(.enter)
        #expect(model.register.warning == "Choose a username.")
        model.type("carol")
        model.press(.tab)
        model.type("short")
        model.press(.enter)
        #expect(model.register.warning?.contains("at least 8") == true)
        model.type("-enough")
        model.press(.tab)
        model.press(.enter)
        #expect(model.register.warning == "Type the password again to confirm it.")
        model.type("different!")
        model.press(.enter)
        #expect(model.register.warning == "The two passwords differ: type them again.")
        #expect(model.register.confirm.isEmpty)
        model.type("short-enough")
        #expect(model.press(.enter) == [.register(username: "carol", password: "short-enough")])
        #expect(model.register.phase == .waiting)
    }

    @Test func aTakenNameIsShownAndTheFormComesBack() {
        var model = Fixture.model()
        model.press(.control("r"))
        model.type("bob")
        _ = model.handle(.result(.registerFailed("the username 'bob' is taken: pick another")))
        #expect(model.screenText.contains("Registration failed"))
        #expect(model.screenText.contains("the username 'bob' is taken"))
        model.press(.escape)
        #expect(model.register.phase == .editing)
        model.press(.escape)
        #expect(model.screen == .login)
    }

    @Test func aBadUsernameIsRefusedWithTheRule() {
        var model = Fixture.model()
        model.press(.control("r"))
        model.type("no/slash")
        model.press(.tab)
        model.type("password123")
        model.press(.tab)
        model.type("password123")
        #expect(model.press(.enter) == [])
        #expect(model.register.warning?.hasPrefix("That username cannot be used") == true)
    }

    @Test func loggingInOpensSessionsAndStartsTheLiveStreamThenLoadsWhenReady() {
        var model = Fixture.model()
        #expect(model.handle(.result(.loggedIn(Fixture.alice))) == [.startLive])
        #expect(model.screen == .sessions)
        #expect(model.login.password.isEmpty)
        #expect(model.handle(.liveReady) == [.loadSessions, .loadContacts])
    }
}
