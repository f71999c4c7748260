import Foundation

/// The command line: `switchboard-soak SCENARIO [--name value | --flag]...`.
struct Options: Sendable {
    let scenario: String
    private let values: [String: String]
    private let flags: Set<String>

    init(_ arguments: [String]) throws {
        guard let first = arguments.first, !first.hasPrefix("-") else {
            throw SoakFailure("name a scenario: \(scenarios.map { $0.name }.joined(separator: ", "))")
        }
        scenario = first
        var values: [String: String] = [:]
        var flags: Set<String> = []
        var rest = arguments.dropFirst()
        while let argument = rest.popFirst() {
            guard argument.hasPrefix("--") else { throw SoakFailure("unexpected argument '\(argument)'") }
            let name = String(argument.dropFirst(2))
            if let value = rest.first, !value.hasPrefix("--") {
                values[name] = value
                rest = rest.dropFirst()
            } else {
                flags.insert(name)
            }
        }
        self.values = values
        self.flags = flags
    }

    /// `--quick`: the sizes `.ci/run` uses, a few minutes per scenario.
    var quick: Bool { flags.contains("quick") }

    /// `--keep`: leave the working folder after a pass too.
    var keep: Bool { flags.contains("keep") }

    func string(_ name: String, default fallback: String) -> String { values[name] ?? fallback }

    /// An integer option, with one default for full runs and one for `--quick`.
    func int(_ name: String, full: Int, quick quickValue: Int) throws -> Int {
        guard let text = values[name] else { return quick ? quickValue : full }
        guard let value = Int(text), value >= 0 else { throw SoakFailure("--\(name) '\(text)' is not a count") }
        return value
    }

    /// The `switchboard` executable under test.
    var binary: String { string("binary", default: ".build/debug/switchboard") }

    /// The shared test data (real Alertmanager notifications): `--testdata`, else
    /// `../shared/testdata` from the repository (where `make` runs).
    var testdata: String { string("testdata", default: "../shared/testdata") }

    /// The random seed: given, or new (and reported) so a run can be repeated.
    var seed: UInt64 { values["seed"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...999_999) }

    /// A fresh working folder (data, configs, logs) under `--work` or the temporary folder.
    func workFolder() throws -> String {
        let base = values["work"] ?? FileManager.default.temporaryDirectory.path
        let path = base + "/switchboard-soak-\(scenario)-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
