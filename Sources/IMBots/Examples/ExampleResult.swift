/// The outcome of one `examples:` entry.
public struct ExampleResult: Sendable, CustomStringConvertible {
    /// The bot's name.
    public let bot: String
    /// The rule the example is written under.
    public let rule: String
    /// The example's position in that rule's list, from 1.
    public let number: Int
    /// Where the example is written.
    public let location: SourceLocation
    /// Why it failed; nil when it passed.
    public let failure: String?

    /// Creates a result.
    public init(bot: String, rule: String, number: Int, location: SourceLocation, failure: String?) {
        self.bot = bot
        self.rule = rule
        self.number = number
        self.location = location
        self.failure = failure
    }

    /// Whether the bot did what the example expects.
    public var passed: Bool { failure == nil }

    /// `file:line:column: rule 'greet' example 1: passed`, or `failed: why`.
    public var description: String {
        "\(location): rule '\(rule)' example \(number): " + (failure.map { "failed: \($0)" } ?? "passed")
    }
}
