import CPCRE2

/// A compiled PCRE2 pattern for UTF-8 text, with its JIT code and the limits every match
/// runs under: the one place that sees PCRE2's C API.
///
/// Matching is bounded: a match that takes more than ``matchLimit`` steps of the engine
/// (or more backtracking memory than ``heapLimitKiB``) stops with ``MatchResult/limit``
/// instead of running on, so no text can stall a bot, whatever the pattern.
///
/// `@unchecked Sendable`: the compiled code and the match context are never changed
/// after `init`; PCRE2 lets many threads match one compiled pattern at once, each with
/// match data of its own (made per call here).
final class PCRE2Pattern: @unchecked Sendable {
    /// Steps a match may take: far beyond what a sane pattern needs on a 4,096-character
    /// message (a few thousand), small enough to stop in milliseconds.
    static let matchLimit: UInt32 = 1_000_000
    /// Backtracking memory one match may use.
    static let heapLimitKiB: UInt32 = 8192

    private let code: OpaquePointer
    private let context: OpaquePointer
    /// Names of named groups, with their group numbers.
    let names: [(name: String, group: Int)]
    /// How many capturing groups the pattern has.
    let captureCount: Int

    /// Why a pattern does not compile: PCRE2's words and where, in characters from the start.
    struct CompileError: Error {
        /// PCRE2's error number (`pcre2_compile`'s `errorcode`).
        var code: Int32
        var message: String
        var offset: Int
    }

    /// How a match ended.
    enum MatchResult {
        /// The byte ranges of the whole match (index 0) and of each group (nil: not set).
        case match([Range<Int>?])
        case noMatch
        /// The match limit was reached: treated as no match.
        case limit
    }

    init(_ pattern: String, caseless: Bool) throws(CompileError) {
        var options = UInt32(PCRE2_UTF | PCRE2_UCP | PCRE2_NEVER_BACKSLASH_C)
        if caseless { options |= UInt32(PCRE2_CASELESS) }
        var errorCode: Int32 = 0
        var errorOffset = 0
        let bytes = Array(pattern.utf8)
        let compiled = bytes.withUnsafeBufferPointer { buffer in
            pcre2_compile_8(buffer.baseAddress, buffer.count, options, &errorCode, &errorOffset, nil)
        }
        guard let compiled else {
            let characters = String(decoding: bytes.prefix(errorOffset), as: UTF8.self).count
            throw CompileError(code: errorCode, message: Self.message(errorCode), offset: characters)
        }
        guard let context = pcre2_match_context_create_8(nil) else {
            pcre2_code_free_8(compiled)
            throw CompileError(code: 0, message: "out of memory", offset: 0)
        }
        pcre2_set_match_limit_8(context, Self.matchLimit)
        pcre2_set_heap_limit_8(context, Self.heapLimitKiB)
        // Without JIT support (some builds) the interpreter runs, under the same limits.
        _ = pcre2_jit_compile_8(compiled, UInt32(PCRE2_JIT_COMPLETE))
        self.code = compiled
        self.context = context
        self.names = Self.namedGroups(compiled)
        var count: UInt32 = 0
        self.captureCount = pcre2_pattern_info_8(compiled, UInt32(PCRE2_INFO_CAPTURECOUNT), &count) == 0 ? Int(count) : 0
    }

    deinit {
        pcre2_match_context_free_8(context)
        pcre2_code_free_8(code)
    }

    /// The first match in `text` (valid UTF-8, as every Swift string is).
    func firstMatch(in text: [UInt8]) -> MatchResult {
        guard let data = pcre2_match_data_create_from_pattern_8(code, nil) else { return .limit }
        defer { pcre2_match_data_free_8(data) }
        let result = text.withUnsafeBufferPointer { buffer in
            pcre2_match_8(code, buffer.baseAddress ?? UnsafePointer(bitPattern: 1), buffer.count, 0,
                          UInt32(PCRE2_NO_UTF_CHECK), data, context)
        }
        switch result {
        case PCRE2_ERROR_NOMATCH:
            return .noMatch
        case ..<0:
            // The match, heap or JIT stack limit, or another run-time failure.
            return .limit
        default:
            let count = Int(pcre2_get_ovector_count_8(data))
            guard let vector = pcre2_get_ovector_pointer_8(data) else { return .limit }
            let unset = sb_pcre2_unset()
            var ranges: [Range<Int>?] = []
            for group in 0..<count {
                let (start, end) = (vector[2 * group], vector[2 * group + 1])
                ranges.append(start == unset || end < start ? nil : start..<end)
            }
            return .match(ranges)
        }
    }

    private static func message(_ code: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 256)
        let length = pcre2_get_error_message_8(code, &buffer, buffer.count)
        return length > 0 ? String(decoding: buffer.prefix(Int(length)), as: UTF8.self) : "error \(code)"
    }

    private static func namedGroups(_ code: OpaquePointer) -> [(name: String, group: Int)] {
        var count: UInt32 = 0
        var entrySize: UInt32 = 0
        var table: UnsafePointer<UInt8>?
        guard pcre2_pattern_info_8(code, UInt32(PCRE2_INFO_NAMECOUNT), &count) == 0, count > 0,
              pcre2_pattern_info_8(code, UInt32(PCRE2_INFO_NAMEENTRYSIZE), &entrySize) == 0,
              pcre2_pattern_info_8(code, UInt32(PCRE2_INFO_NAMETABLE), &table) == 0, let table else { return [] }
        return (0..<Int(count)).map { index in
            // Each entry: the group number in two bytes, most significant first, then the
            // name, NUL-terminated.
            let entry = table + index * Int(entrySize)
            let group = Int(entry[0]) << 8 | Int(entry[1])
            let name = String(cString: entry + 2)
            return (name, group)
        }
    }
}
