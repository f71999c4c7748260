import IMBots
import YAMLCoding

/// Bot files: YAML text through the YAML layer and the bot loader, and the examples of a
/// file that loads, as `switchboard check` and `switchboard test` run them.
///
/// Invariants: a file either loads or fails with at least one error, and every error
/// names the file; a loaded bot's examples run to an answer.
struct BotFileTarget: FuzzTarget {
    static let file = "fuzz.yaml"
    static let environment = ["BOT_PASSWORD": "a password long enough", "EMPTY": ""]

    init() {}

    func run(_ input: [UInt8]) {
        guard let text = input[...].utf8Text else { return }
        // The generic layer first: any YAML, not only bot files.
        do {
            let node = try YAMLLoader(interpolation: .environment(Self.environment)).load(text, file: Self.file)
            _ = try? YAMLDecoder().decode(YAMLValue.self, from: node)
        } catch {
            require(!error.errors.isEmpty, "a YAML failure without an error")
            for problem in error.errors {
                require(problem.description.hasPrefix(Self.file), "a YAML error without the file: \(problem)")
            }
        }
        let bot: BotDefinition
        do {
            bot = try BotLoader.load(text: text, file: Self.file, directory: "/nonexistent",
                                     environment: Self.environment)
        } catch {
            require(!error.errors.isEmpty, "a failed bot file without an error")
            for problem in error.errors {
                require(problem.description.hasPrefix(Self.file), "a bot file error without the file: \(problem)")
            }
            return
        }
        let results = blocking { await ExampleRunner.run(bot: bot) }
        require(results.count == bot.rules.reduce(0) { $0 + $1.examples.count },
                "\(results.count) example results for a different number of examples")
    }
}
