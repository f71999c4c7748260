import CYAML

/// One libyaml parsing event, copied out of C memory.
enum Event {
    case streamStart
    case streamEnd
    case documentStart(YAMLMark)
    case documentEnd
    case alias(anchor: String, mark: YAMLMark)
    case scalar(YAMLNode.Scalar, tag: String?, anchor: String?, mark: YAMLMark)
    case sequenceStart(tag: String?, anchor: String?, mark: YAMLMark)
    case sequenceEnd
    case mappingStart(tag: String?, anchor: String?, mark: YAMLMark)
    case mappingEnd
}

/// Owns one `yaml_parser_t` and the input bytes it reads, and turns libyaml's events
/// into `Event` values.
///
/// The parser struct is heap-allocated because libyaml keeps a pointer to it (as the
/// read handler's data), so it must never move.
final class EventReader {
    private let parser: UnsafeMutablePointer<yaml_parser_t>
    private let input: UnsafeMutableBufferPointer<UInt8>
    /// The same bytes, for locating reader errors and looking at the offending character.
    private let bytes: [UInt8]
    /// False when libyaml could not allocate its buffers.
    private let initialized: Bool
    private var finished = false

    init(_ text: String) {
        bytes = Array(text.utf8)
        input = .allocate(capacity: max(bytes.count, 1))
        _ = input.initialize(from: bytes)
        parser = .allocate(capacity: 1)
        parser.initialize(to: yaml_parser_t())
        initialized = yaml_parser_initialize(parser) == 1
        if initialized {
            yaml_parser_set_encoding(parser, YAML_UTF8_ENCODING)
            yaml_parser_set_input_string(parser, input.baseAddress, bytes.count)
        }
    }

    deinit {
        if initialized { yaml_parser_delete(parser) }
        parser.deallocate()
        input.deallocate()
    }

    /// The next event; after `streamEnd` keeps returning `streamEnd`.
    func next() throws(YAMLError) -> Event {
        if finished { return .streamEnd }
        guard initialized else { throw YAMLError(.syntax, "out of memory while starting the parser") }
        var event = yaml_event_t()
        guard yaml_parser_parse(parser, &event) == 1 else { throw currentError() }
        defer { yaml_event_delete(&event) }
        let mark = YAMLMark(line: Int(event.start_mark.line) + 1,
                            column: Int(event.start_mark.column) + 1)
        switch event.type {
        case YAML_STREAM_START_EVENT:
            return .streamStart
        case YAML_STREAM_END_EVENT:
            finished = true
            return .streamEnd
        case YAML_DOCUMENT_START_EVENT:
            return .documentStart(mark)
        case YAML_DOCUMENT_END_EVENT:
            return .documentEnd
        case YAML_ALIAS_EVENT:
            return .alias(anchor: Self.string(event.data.alias.anchor) ?? "", mark: mark)
        case YAML_SCALAR_EVENT:
            let data = event.data.scalar
            let text = String(decoding: UnsafeBufferPointer(start: data.value, count: data.length),
                              as: UTF8.self)
            return .scalar(YAMLNode.Scalar(text, style: Self.style(data.style)),
                           tag: Self.string(data.tag), anchor: Self.string(data.anchor), mark: mark)
        case YAML_SEQUENCE_START_EVENT:
            let data = event.data.sequence_start
            return .sequenceStart(tag: Self.string(data.tag), anchor: Self.string(data.anchor),
                                  mark: mark)
        case YAML_SEQUENCE_END_EVENT:
            return .sequenceEnd
        case YAML_MAPPING_START_EVENT:
            let data = event.data.mapping_start
            return .mappingStart(tag: Self.string(data.tag), anchor: Self.string(data.anchor),
                                 mark: mark)
        case YAML_MAPPING_END_EVENT:
            return .mappingEnd
        default:
            throw YAMLError(.syntax, "unexpected parser event \(event.type.rawValue)", mark: mark)
        }
    }

    /// The parser's error, with libyaml's problem and context text.
    private func currentError() -> YAMLError {
        let state = parser.pointee
        var message = state.problem.map { String(cString: $0) } ?? "invalid YAML"
        switch state.error {
        case YAML_MEMORY_ERROR:
            return YAMLError(.syntax, "out of memory while parsing")
        case YAML_READER_ERROR:
            if state.problem_value != -1 {
                message += " (byte 0x" + String(state.problem_value, radix: 16, uppercase: true) + ")"
            }
            return YAMLError(.syntax, message, mark: markOfByte(state.problem_offset))
        default:
            let mark = Self.mark(state.problem_mark)
            if let context = state.context.map({ String(cString: $0) }) {
                message += " (\(context) at \(Self.mark(state.context_mark)))"
            }
            if character(at: mark) == "\t" {
                message += "; tabs cannot indent YAML, use spaces"
            }
            return YAMLError(.syntax, message, mark: mark)
        }
    }

    private static func mark(_ mark: yaml_mark_t) -> YAMLMark {
        YAMLMark(line: Int(mark.line) + 1, column: Int(mark.column) + 1)
    }

    /// The line and column of a byte offset (reader errors carry only the offset).
    private func markOfByte(_ offset: Int) -> YAMLMark {
        let end = min(offset, bytes.count)
        var line = 1, lineStart = 0
        for index in 0..<end where bytes[index] == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        let column = String(decoding: bytes[lineStart..<end], as: UTF8.self).count + 1
        return YAMLMark(line: line, column: column)
    }

    /// The character (code point, as libyaml counts columns) at a mark.
    private func character(at mark: YAMLMark) -> Unicode.Scalar? {
        var line = 1, column = 1
        for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars {
            if line == mark.line && column == mark.column { return scalar }
            if line > mark.line { return nil }
            if scalar == "\n" {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return nil
    }

    private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    private static func style(_ style: yaml_scalar_style_t) -> YAMLNode.Scalar.Style {
        switch style {
        case YAML_SINGLE_QUOTED_SCALAR_STYLE: return .singleQuoted
        case YAML_DOUBLE_QUOTED_SCALAR_STYLE: return .doubleQuoted
        case YAML_LITERAL_SCALAR_STYLE: return .literal
        case YAML_FOLDED_SCALAR_STYLE: return .folded
        default: return .plain
        }
    }
}
