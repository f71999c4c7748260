import Testing
import YAMLCoding

/// The errors a throwing call produced (empty if it did not throw).
func yamlErrors(_ body: () throws -> Void) -> [YAMLError] {
    do {
        try body()
        return []
    } catch let error as YAMLErrors {
        return error.errors
    } catch {
        Issue.record("expected YAMLErrors, got \(error)")
        return []
    }
}

/// The error lines (`file:line:column: message`) a throwing call produced.
func errorLines(_ body: () throws -> Void) -> [String] {
    yamlErrors(body).map(\.description)
}

/// A loader that leaves `${...}` alone, for tests about structure.
let plainLoader = YAMLLoader(interpolation: .disabled)

/// A decoder with an empty environment, so tests never depend on the machine's.
let decoder = YAMLDecoder(interpolation: .environment([:]))
