import IMProtocol

/// The Login and Register screens' keys.
extension ChatModel {
    mutating func loginKey(_ key: Key) -> [ChatEffect] {
        switch login.phase {
        case .waiting:
            return []
        case .failed:
            if key == .enter || key == .escape {
                login.phase = .editing
                login.focus = .password
            }
            return []
        case .editing:
            break
        }
        let before = login.focus
        switch key {
        case .tab, .down:
            login.focus = LoginState.Focus(rawValue: (login.focus.rawValue + 1) % 4) ?? .username
        case .backTab, .up:
            login.focus = LoginState.Focus(rawValue: (login.focus.rawValue + 3) % 4) ?? .username
        case .control("r"):
            return showRegister()
        case .escape:
            login.warning = nil
        case .enter:
            if login.focus == .register { return showRegister() }
            return submitLogin()
        default:
            switch login.focus {
            case .username:
                if login.username.edit(key) { login.warning = nil }
            case .password:
                if login.password.edit(key) { login.warning = nil }
            case .login, .register:
                break
            }
        }
        // Leaving the username field shows the avatar saved for that user, if any.
        if before == .username, login.focus != .username { return lookUpTypedUser() }
        return []
    }

    private mutating func lookUpTypedUser() -> [ChatEffect] {
        let name = login.username.text.lowercased()
        guard name != login.profileFor else { return [] }
        login.savedProfile = nil
        login.profileFor = name
        guard (try? Validate.username(name)) != nil else { return [] }
        return [.lookUpLocalProfile(name)]
    }

    private mutating func showRegister() -> [ChatEffect] {
        register = RegisterState()
        if !login.username.isEmpty, login.savedProfile == nil { register.username.set(login.username.text) }
        screen = .register
        return []
    }

    private mutating func submitLogin() -> [ChatEffect] {
        let username = login.username.text.trimmingSpaces()
        if username.isEmpty {
            login.warning = "Enter your username."
            login.focus = .username
            return []
        }
        if login.password.isEmpty {
            login.warning = "Enter your password."
            login.focus = .password
            return []
        }
        login.warning = nil
        login.note = nil
        login.phase = .waiting
        return lookUpTypedUser() + [.login(username: username.lowercased(), password: login.password.text)]
    }

    mutating func registerKey(_ key: Key) -> [ChatEffect] {
        switch register.phase {
        case .waiting:
            return []
        case .failed:
            if key == .enter || key == .escape {
                register.phase = .editing
                register.focus = .username
            }
            return []
        case .editing:
            break
        }
        let count = RegisterState.Focus.allCases.count
        switch key {
        case .tab, .down:
            register.focus = RegisterState.Focus(rawValue: (register.focus.rawValue + 1) % count) ?? .username
        case .backTab, .up:
            register.focus = RegisterState.Focus(rawValue: (register.focus.rawValue + count - 1) % count) ?? .username
        case .escape:
            screen = .login
        case .enter:
            if register.focus == .back {
                screen = .login
                return []
            }
            return submitRegister()
        default:
            let edited: Bool
            switch register.focus {
            case .username: edited = register.username.edit(key)
            case .password: edited = register.password.edit(key)
            case .confirm: edited = register.confirm.edit(key)
            case .register, .back: edited = false
            }
            if edited { register.warning = nil }
        }
        return []
    }

    private mutating func submitRegister() -> [ChatEffect] {
        let username = register.username.text.trimmingSpaces().lowercased()
        func warn(_ text: String, _ focus: RegisterState.Focus) -> [ChatEffect] {
            register.warning = text
            register.focus = focus
            return []
        }
        if username.isEmpty { return warn("Choose a username.", .username) }
        do {
            _ = try Validate.username(username)
        } catch {
            return warn("That username cannot be used: \((error as? APIError)?.message ?? String(describing: error))", .username)
        }
        if register.password.isEmpty { return warn("Choose a password.", .password) }
        if register.password.text.utf8.count < Limits.passwordBytes.lowerBound {
            return warn("The password needs at least \(Limits.passwordBytes.lowerBound) characters.", .password)
        }
        if register.confirm.isEmpty { return warn("Type the password again to confirm it.", .confirm) }
        if register.confirm.text != register.password.text {
            register.confirm.set("")
            return warn("The two passwords differ: type them again.", .confirm)
        }
        register.warning = nil
        register.phase = .waiting
        return [.register(username: username, password: register.password.text)]
    }
}
