import Foundation

/// `--name value` options of a benchmark program; an unknown option or a bad number
/// exits with status 2 and says which.
public struct BenchArguments {
    private var values: [String: String] = [:]

    /// Parses the process's arguments against the option names it knows.
    public init(known: Set<String>, arguments: [String] = Array(CommandLine.arguments.dropFirst())) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            let name = String(argument.drop { $0 == "-" })
            guard argument.hasPrefix("--"), known.contains(name), let value = iterator.next() else {
                Self.fail("unknown option or missing value: \(argument) (known: \(known.sorted().map { "--\($0)" }.joined(separator: " ")))")
            }
            values[name] = value
        }
    }

    /// The whole number given for `name`, or `fallback`.
    public func int(_ name: String, _ fallback: Int) -> Int {
        guard let text = values[name] else { return fallback }
        guard let value = Int(text), value > 0 else { Self.fail("--\(name) needs a positive whole number") }
        return value
    }

    /// The text given for `name`, or `fallback`.
    public func string(_ name: String, _ fallback: String) -> String { values[name] ?? fallback }

    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        exit(2)
    }
}
