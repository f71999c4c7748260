import Foundation

/// One fuzz target: it takes any bytes, and traps (through ``require(_:_:)``) when an
/// invariant of the code under test breaks, so libFuzzer keeps the input as a crash.
///
/// Crashes, sanitizer reports and hangs (libFuzzer's `-timeout`) are findings too; the
/// invariants catch what does not crash: wrong answers.
protocol FuzzTarget {
    /// Sets up what every input shares (a server, a context); called once.
    init() throws
    /// Runs one input.
    func run(_ input: [UInt8])
}

/// Stops the process with `message` when `condition` is false: a finding.
func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
             file: StaticString = #fileID, line: UInt = #line) {
    guard !condition() else { return }
    FileHandle.standardError.write(Data("invariant broken: \(message())\n".utf8))
    fatalError("invariant broken", file: file, line: line)
}

/// Runs async code from libFuzzer's thread, which is not part of the concurrency pool.
func blocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let done = DispatchSemaphore(value: 0)
    let box = ResultBox<T>()
    Task {
        box.value = await body()
        done.signal()
    }
    done.wait()
    // The semaphore orders the write before this read.
    guard let value = box.value else { fatalError("the task ended without a result") }
    return value
}

/// Carries a result out of the task in ``blocking(_:)``.
private final class ResultBox<T>: @unchecked Sendable {
    // Written once by the task before it signals, read once after the wait: never at once.
    var value: T?
}

extension Array where Element == UInt8 {
    /// The bytes before the first `separator`, and those after it (empty when it is absent).
    func split(at separator: UInt8) -> (ArraySlice<UInt8>, ArraySlice<UInt8>) {
        guard let index = firstIndex(of: separator) else { return (self[...], []) }
        return (self[..<index], self[(index + 1)...])
    }
}

extension ArraySlice where Element == UInt8 {
    /// The bytes as text when they are valid UTF-8.
    var utf8Text: String? { String(validating: self, as: UTF8.self) }
}
