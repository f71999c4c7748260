/// A runner failure with a message a person can act on.
public struct RunnerError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
