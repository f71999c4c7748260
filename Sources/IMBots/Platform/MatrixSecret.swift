import Foundation

/// The secret a Matrix bot logs in with, read where its bot file says: an environment
/// variable, or a file only its owner may read (mode 0600 or stricter; anything else is
/// refused, as an exposed secret must be replaced, not used).
public enum MatrixSecret: Sendable, Hashable {
    case password(String)
    case accessToken(String)

    /// The most a token file may hold: a token is a few hundred bytes at most.
    static let maxFileBytes = 4096

    /// Reads the secret of `credential`; throws a message that says what to fix.
    public static func read(_ credential: MatrixAccount.Credential,
                            environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(MatrixSecretError) -> MatrixSecret
    {
        switch credential {
        case .passwordVariable(let name):
            guard let value = environment[name], !value.isEmpty else {
                throw MatrixSecretError(message: "the environment variable \(name) (password_env) is not set: set it to the bot's Matrix password")
            }
            return .password(value)
        case .tokenVariable(let name):
            guard let value = environment[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else {
                throw MatrixSecretError(message: "the environment variable \(name) (token_env) is not set: set it to the bot's access token")
            }
            return .accessToken(value)
        case .tokenFile(let path):
            return .accessToken(try tokenFile(path))
        }
    }

    /// The first line of a 0600 file.
    static func tokenFile(_ path: String) throws(MatrixSecretError) -> String {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw MatrixSecretError(message: "cannot read the token file \(path) (token_file): \(String(cString: strerror(errno)))")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw MatrixSecretError(message: "the token file \(path) (token_file) is not a regular file")
        }
        let mode = status.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw MatrixSecretError(message: "the token file \(path) may be read by others (mode \(String(mode, radix: 8))): "
                + "replace the token if others read it, then `chmod 600 \(path)`")
        }
        guard status.st_size <= maxFileBytes, let data = FileManager.default.contents(atPath: path) else {
            throw MatrixSecretError(message: "the token file \(path) is larger than \(maxFileBytes) bytes or unreadable: it holds one access token")
        }
        let token = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).first
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard !token.isEmpty else { throw MatrixSecretError(message: "the token file \(path) is empty: write the access token in it") }
        return token
    }
}

/// A Matrix credential that cannot be read.
public struct MatrixSecretError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
