#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Byte-level text tests on UTF-8, the hot path of text matchers.
///
/// Comparing bytes of UTF-8 compares Unicode scalars, which is what a chat filter wants
/// (and what regex engines do); it is an order of magnitude faster than `String`
/// comparison, which works on grapheme clusters through Foundation.
enum ByteText {
    /// The digit `1` in normalised text: it stands for `i` or `l`.
    static let wildcardOne = UInt8(ascii: "1")

    /// Whether a text byte matches a pattern byte; with `wildcard`, text `1` matches
    /// pattern `i` and `l`.
    @inline(__always)
    static func same(_ text: UInt8, _ pattern: UInt8, wildcard: Bool) -> Bool {
        text == pattern
            || (wildcard && text == wildcardOne
                && (pattern == UInt8(ascii: "i") || pattern == UInt8(ascii: "l")))
    }

    /// Whether `text[offset...]` starts with `pattern`.
    @inline(__always)
    static func matches(_ text: UnsafeBufferPointer<UInt8>, at offset: Int,
                        _ pattern: UnsafeBufferPointer<UInt8>, wildcard: Bool) -> Bool {
        guard offset >= 0, offset + pattern.count <= text.count else { return false }
        var index = 0
        while index < pattern.count {
            if !same(text[offset + index], pattern[index], wildcard: wildcard) { return false }
            index += 1
        }
        return true
    }

    /// Where a match of `pattern` at `text[offset...]` may end when letters may be
    /// stretched (`scaaam` for `scam`, `frreee` for `free`): each run of one letter in the
    /// pattern takes at least as many of that letter in the text, and any more that
    /// follow. The last run may stop anywhere from its fewest letters to its most (in
    /// `scam mad` the match ends before `mad`); nil when there is no match at `offset`.
    static func matchEnds(_ text: UnsafeBufferPointer<UInt8>, at offset: Int,
                          _ pattern: UnsafeBufferPointer<UInt8>, wildcard: Bool) -> ClosedRange<Int>? {
        var position = offset
        var index = 0
        var shortest = offset
        while index < pattern.count {
            let letter = pattern[index]
            var run = 1
            while index + run < pattern.count, pattern[index + run] == letter { run += 1 }
            var taken = 0
            while position < text.count, same(text[position], letter, wildcard: wildcard) {
                position += 1
                taken += 1
                if taken == run { shortest = position }
            }
            guard taken >= run else { return nil }
            index += run
        }
        return shortest...position
    }

    /// Whether `text` equals `pattern`.
    static func equals(_ text: [UInt8], _ pattern: [UInt8], wildcard: Bool) -> Bool {
        guard text.count == pattern.count else { return false }
        guard wildcard else { return text == pattern }
        return hasPrefix(text, pattern, wildcard: true)
    }

    /// Whether `text` starts with `pattern`.
    static func hasPrefix(_ text: [UInt8], _ pattern: [UInt8], wildcard: Bool) -> Bool {
        text.withUnsafeBufferPointer { t in
            pattern.withUnsafeBufferPointer { p in matches(t, at: 0, p, wildcard: wildcard) }
        }
    }

    /// Whether `text` ends with `pattern`.
    static func hasSuffix(_ text: [UInt8], _ pattern: [UInt8], wildcard: Bool) -> Bool {
        text.withUnsafeBufferPointer { t in
            pattern.withUnsafeBufferPointer { p in
                matches(t, at: t.count - p.count, p, wildcard: wildcard)
            }
        }
    }

    /// Whether `pattern` occurs anywhere in `text`; an empty pattern always does.
    static func contains(_ text: [UInt8], _ pattern: [UInt8], wildcard: Bool = false) -> Bool {
        guard !pattern.isEmpty else { return true }
        guard pattern.count <= text.count else { return false }
        return text.withUnsafeBufferPointer { t in
            pattern.withUnsafeBufferPointer { p in
                guard wildcard, p.contains(UInt8(ascii: "i")) || p.contains(UInt8(ascii: "l")),
                      t.contains(wildcardOne) else {
                    return exactIndex(of: p, in: t) != nil
                }
                return firstIndex(of: p, in: t, from: 0, wildcard: true) != nil
            }
        }
    }

    /// The first offset of `pattern` in `text`, comparing bytes exactly: the C library's
    /// vectorised `memchr` finds each candidate first byte, `memcmp` checks the rest.
    static func exactIndex(of pattern: UnsafeBufferPointer<UInt8>, in text: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let textBase = text.baseAddress, let patternBase = pattern.baseAddress,
              pattern.count <= text.count else { return pattern.isEmpty ? 0 : nil }
        let first = Int32(patternBase.pointee)
        let last = text.count - pattern.count
        var offset = 0
        while offset <= last {
            guard let found = memchr(textBase + offset, first, last - offset + 1) else { return nil }
            let index = textBase.distance(to: found.assumingMemoryBound(to: UInt8.self))
            if memcmp(textBase + index, patternBase, pattern.count) == 0 { return index }
            offset = index + 1
        }
        return nil
    }

    /// The first offset at or after `start` where `pattern` occurs in `text`.
    static func firstIndex(of pattern: UnsafeBufferPointer<UInt8>, in text: UnsafeBufferPointer<UInt8>,
                           from start: Int, wildcard: Bool) -> Int? {
        guard let first = pattern.first else { return start <= text.count ? start : nil }
        let last = text.count - pattern.count
        guard start <= last else { return nil }
        var offset = start
        while offset <= last {
            // Scan for the first byte, then compare the rest.
            if same(text[offset], first, wildcard: wildcard),
               matches(text, at: offset, pattern, wildcard: wildcard) {
                return offset
            }
            offset += 1
        }
        return nil
    }

    /// Whether every byte is ASCII.
    static func isASCII(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            var combined: UInt8 = 0
            for byte in buffer { combined |= byte }
            return combined < 0x80
        }
    }

    /// ASCII letters lowered; other bytes unchanged.
    static func asciiLowercased(_ bytes: [UInt8]) -> [UInt8] {
        bytes.map { $0 &- UInt8(ascii: "A") < 26 ? $0 | 0x20 : $0 }
    }

    /// The text lowered: per byte when ASCII, by Unicode case mapping otherwise.
    static func lowercased(_ text: String) -> [UInt8] {
        let bytes = Array(text.utf8)
        return isASCII(bytes) ? asciiLowercased(bytes) : Array(text.lowercased().utf8)
    }

    /// Whether an ASCII byte is a letter or digit.
    @inline(__always)
    static func isASCIIAlphanumeric(_ byte: UInt8) -> Bool {
        (byte | 0x20) &- UInt8(ascii: "a") < 26 || byte &- UInt8(ascii: "0") < 10
    }
}
