import Foundation

/// Whether and from where `${VAR}` references in scalar values are filled in.
///
/// Supported forms: `${VAR}`, `${VAR:-default}` (the default, possibly empty, is used when
/// VAR is unset or empty) and `$${` for a literal `${`. Only values are interpolated, never
/// keys, and before type resolution, so `port: ${PORT:-8080}` is an integer. An empty
/// result of a plain scalar is null like any empty plain scalar; quote it
/// (`"${TOKEN:-}"`) to get an empty string.
public enum Interpolation: Sendable, Hashable {
    /// Scalars are taken literally.
    case disabled
    /// References are looked up in this environment.
    case environment([String: String])

    /// The environment of the running process.
    public static var processEnvironment: Interpolation {
        .environment(ProcessInfo.processInfo.environment)
    }

    /// Expands the references in `text`, or returns it unchanged when disabled.
    func expand(_ text: String) -> Result<String, YAMLError> {
        guard case .environment(let environment) = self, text.contains("$") else {
            return .success(text)
        }
        var output = ""
        var rest = Substring(text)
        while let dollar = rest.firstIndex(of: "$") {
            output += rest[..<dollar]
            let afterDollar = rest[dollar...].dropFirst()
            if afterDollar.hasPrefix("${") {
                output += "${"
                rest = afterDollar.dropFirst(2)
            } else if afterDollar.hasPrefix("{") {
                let body = afterDollar.dropFirst()
                guard let close = body.firstIndex(of: "}") else {
                    return .failure(YAMLError(.invalidInterpolation,
                        "unterminated '${' (write $${ for a literal '${')"))
                }
                switch Self.substitute(body[..<close], in: environment) {
                case .success(let value): output += value
                case .failure(let error): return .failure(error)
                }
                rest = body[close...].dropFirst()
            } else {
                output += "$"
                rest = afterDollar
            }
        }
        output += rest
        return .success(output)
    }

    private static func substitute(_ reference: Substring,
                                   in environment: [String: String]) -> Result<String, YAMLError> {
        let name: Substring
        let fallback: Substring?
        if let separator = reference.range(of: ":-") {
            name = reference[..<separator.lowerBound]
            fallback = reference[separator.upperBound...]
        } else {
            name = reference
            fallback = nil
        }
        guard isVariableName(name) else {
            return .failure(YAMLError(.invalidInterpolation,
                "'${\(reference)}' is not a valid reference: write ${NAME} or ${NAME:-default}, "
                + "where NAME is letters, digits and '_' (write $${ for a literal '${')"))
        }
        let value = environment[String(name)]
        if let fallback, value?.isEmpty ?? true { return .success(String(fallback)) }
        guard let value else {
            return .failure(YAMLError(.unsetVariable,
                "environment variable '\(name)' is not set (set it, or write ${\(name):-default})"))
        }
        return .success(value)
    }

    private static func isVariableName(_ name: Substring) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || isASCIILetter(first) else {
            return false
        }
        return name.unicodeScalars.allSatisfy {
            $0 == "_" || isASCIILetter($0) || ("0"..."9").contains($0)
        }
    }

    private static func isASCIILetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }
}
