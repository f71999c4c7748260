/// Why an `HTTPServer` could not start.
public struct HTTPServerError: Error, CustomStringConvertible {
    /// What went wrong, for code to branch on.
    public var code: Code
    /// What went wrong, for a person: names the address and the system's reason.
    public var message: String

    /// The kinds of start-up failure.
    public enum Code: Sendable {
        /// Another process (or server) already listens on the address.
        case addressInUse
        /// The address could not be used: not a local address, no permission, bad syntax.
        case cannotBind
        /// The HTTP library refused to start, or the server was already shut down.
        case startFailed
    }

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
