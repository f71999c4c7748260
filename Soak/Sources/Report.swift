import Foundation

/// What a scenario measured, what it found and what broke.
///
/// A failure is a broken promise of the API (a lost or doubled message, a limit that did
/// not hold, a crash): the run exits 1. A finding is worth fixing but breaks no documented
/// promise (an error that is not the envelope, a limit nobody has set yet): it is reported.
struct Report: Sendable {
    let scenario: String
    private(set) var figures: [(name: String, value: String)] = []
    private(set) var findings: [String] = []
    private(set) var failures: [String] = []

    init(scenario: String) { self.scenario = scenario }

    mutating func figure(_ name: String, _ value: any CustomStringConvertible) {
        figures.append((name, value.description))
    }

    mutating func finding(_ text: String) { findings.append(text) }

    /// Records a failure unless `condition` holds.
    mutating func check(_ condition: Bool, _ failure: @autoclosure () -> String) {
        if !condition { failures.append(failure()) }
    }

    mutating func fail(_ failure: String) { failures.append(failure) }

    var passed: Bool { failures.isEmpty }

    var text: String {
        var lines = ["== \(scenario): \(passed ? "passed" : "FAILED")"]
        let width = figures.map(\.name.count).max() ?? 0
        lines += figures.map { "  \($0.name.padding(toLength: width, withPad: " ", startingAt: 0))  \($0.value)" }
        lines += findings.map { "  finding: \($0)" }
        lines += failures.map { "  FAILURE: \($0)" }
        return lines.joined(separator: "\n")
    }
}

/// Latencies of one kind of request, in milliseconds.
struct Latencies: Sendable, CustomStringConvertible {
    private(set) var samples: [Double] = []
    private(set) var errors = 0
    /// The first few distinct reasons of the errors.
    private(set) var reasons: [String] = []

    mutating func add(_ milliseconds: Double) { samples.append(milliseconds) }

    mutating func addError(_ reason: String) {
        errors += 1
        if reasons.count < 3, !reasons.contains(reason) { reasons.append(reason) }
    }

    func percentile(_ p: Double) -> Double {
        guard !samples.isEmpty else { return 0 }
        let sorted = samples.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
    }

    var description: String {
        String(format: "%d requests, p50 %.1f ms, p99 %.1f ms, max %.1f ms, %d errors",
               samples.count, percentile(0.5), percentile(0.99), samples.max() ?? 0, errors)
            + (reasons.isEmpty ? "" : " (\(reasons.joined(separator: "; ")))")
    }
}

extension Duration {
    /// In seconds, for figures.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
