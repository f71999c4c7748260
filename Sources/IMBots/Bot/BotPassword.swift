import Foundation

/// Where a bot's password comes from: its file (`account.password`, usually
/// `${VARIABLE}`), or, when that is empty, one generated at the first start and kept in
/// `STATE/<bot>/password` (0600), so that no shipped file needs a default secret.
enum BotPassword {
    /// The password to log in (and to create the account) with.
    ///
    /// A bot without a password that may not create its account (`register: false`)
    /// has nothing to log in with: the error names the variable to set.
    static func resolve(for definition: BotDefinition, folder: String,
                        note: (String) -> Void) throws(RunnerError) -> String {
        let account = definition.account
        if !account.password.isEmpty { return account.password }
        let path = folder + "/password"
        if let kept = try LocalFiles.keptSecret(at: path) { return kept }
        guard account.register else {
            let variable = account.passwordVariable.map { "set \($0)" } ?? "set account.password"
            throw RunnerError(
                "bot '\(definition.name)' has no password (\(definition.file): account.password is empty): "
                    + "\(variable) to the account's password, or set account.register: true to have the runner "
                    + "create the account with a generated one")
        }
        let (generated, _) = try LocalFiles.secret(at: path, prefix: "sbp_")
        note("bot \(definition.name): no password configured; generated one, kept in \(path) (mode 0600)")
        return generated
    }
}
