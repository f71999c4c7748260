import Foundation

/// A soak scenario: it starts what it breaks, breaks it, and reports what clients saw.
protocol Scenario: Sendable {
    static var name: String { get }
    static var summary: String { get }
    /// Its working folder (data, configs, logs): removed after a pass unless `--keep`.
    var work: String { get }
    init(options: Options) throws
    func run(_ report: inout Report) async throws
}

let scenarios: [any Scenario.Type] = [
    SelfCheckScenario.self, ServerKillScenario.self, RunnerKillScenario.self, StorageFaultScenario.self, AbuseScenario.self,
]

@main
enum SoakMain {
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.isEmpty || arguments.contains("--help") {
            print("usage: switchboard-soak SCENARIO [--quick] [--binary PATH] [--store sqlite|postgres] [--seed N] [--work DIR] [--keep] [--report FILE]")
            for scenario in scenarios { print("  \(scenario.name.padding(toLength: 12, withPad: " ", startingAt: 0)) \(scenario.summary)") }
            exit(arguments.isEmpty ? 2 : 0)
        }
        do {
            let options = try Options(arguments)
            guard let type = scenarios.first(where: { $0.name == options.scenario }) else {
                throw SoakFailure("unknown scenario '\(options.scenario)'")
            }
            let scenario = try type.init(options: options)
            var report = Report(scenario: type.name)
            let started = ContinuousClock.now
            do {
                try await scenario.run(&report)
            } catch {
                report.fail("stopped: \(error)")
            }
            report.figure("wall time", "\(Int((ContinuousClock.now - started).components.seconds)) s")
            if report.passed, !options.keep, !scenario.work.isEmpty {
                try? FileManager.default.removeItem(atPath: scenario.work)
            } else if !scenario.work.isEmpty {
                report.figure("working folder", scenario.work)
            }
            print(report.text)
            if let file = options.string("report", default: "").nilIfEmpty {
                let line = Data((report.text + "\n").utf8)
                if let handle = FileHandle(forWritingAtPath: file) {
                    handle.seekToEndOfFile()
                    handle.write(line)
                    try? handle.close()
                } else {
                    _ = FileManager.default.createFile(atPath: file, contents: line)
                }
            }
            exit(report.passed ? 0 : 1)
        } catch {
            FileHandle.standardError.write(Data("switchboard-soak: \(error)\n".utf8))
            exit(2)
        }
    }
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}
