/// Renders parsed nodes into one output string, keeping the context stack in place.
struct TemplateRenderer {
    private let partials: [String: Template]
    private let escaping: TemplateEscaping
    /// Innermost context last; names are looked up from the end.
    private var stack: [TemplateValue]
    private(set) var output = ""
    /// What is left of ``Template/maximumRenderSteps``.
    private var steps = Template.maximumRenderSteps

    init(context: TemplateValue, partials: [String: Template], escaping: TemplateEscaping) {
        self.partials = partials
        self.escaping = escaping
        self.stack = [context]
        output.reserveCapacity(256)
    }

    /// Renders a whole template; `indentation` is written at each of its line starts.
    mutating func render(_ template: Template, indentation: String, depth: Int) {
        render(template.nodes, template.nodes.indices, indentation: indentation, depth: depth)
    }

    private mutating func render(_ nodes: [TemplateNode], _ range: Range<Int>, indentation: String, depth: Int) {
        var index = range.lowerBound
        while index < range.upperBound {
            guard steps > 0, output.utf8.count <= Template.maximumOutputBytes else {
                steps = 0
                return
            }
            steps -= 1
            switch nodes[index] {
            case .text(let text):
                output += text
            case .lineStart:
                if !indentation.isEmpty { output += indentation }
            case .variable(let path, let escaped):
                if let value = resolve(path) { append(value.interpolatedText, escaped: escaped) }
            case .section(let path, let inverted, let end):
                let value = resolve(path) ?? .null
                let body = (index + 1)..<end
                if inverted {
                    if !value.isTruthy { render(nodes, body, indentation: indentation, depth: depth) }
                } else if case .array(let items) = value {
                    for item in items {
                        stack.append(item)
                        render(nodes, body, indentation: indentation, depth: depth)
                        stack.removeLast()
                    }
                } else if value.isTruthy {
                    stack.append(value)
                    render(nodes, body, indentation: indentation, depth: depth)
                    stack.removeLast()
                }
                index = end
                continue
            case .partial(let name, let ownIndentation):
                guard depth < Template.maximumPartialDepth, let partial = partials[name] else { break }
                // Only a standalone partial is indented, by its own indentation on top of
                // the one it inherits; an inline partial is inserted as it is.
                let inner = ownIndentation.map { indentation + $0 } ?? ""
                render(partial, indentation: inner, depth: depth + 1)
            }
            index += 1
        }
    }

    /// Looks the first component up through the context stack, then the rest strictly
    /// inside what it found, as the specification requires.
    private func resolve(_ path: [String]) -> TemplateValue? {
        guard let first = path.first else { return stack.last }
        var found: TemplateValue?
        for context in stack.reversed() {
            if case .object(let members) = context, let value = members[first] {
                found = value
                break
            }
        }
        guard var value = found else { return nil }
        for component in path.dropFirst() {
            guard let next = value.member(component) else { return nil }
            value = next
        }
        return value
    }

    private mutating func append(_ text: String, escaped: Bool) {
        if escaping == .urlComponent {
            appendPercentEncoded(text)
            return
        }
        guard escaped, escaping == .html else {
            output += text
            return
        }
        // Copy the runs between special characters whole; the special characters are
        // ASCII, so every run boundary is a Unicode scalar boundary.
        let bytes = text.utf8
        var runStart = bytes.startIndex
        var index = runStart
        while index != bytes.endIndex {
            let entity: String
            switch bytes[index] {
            case UInt8(ascii: "&"): entity = "&amp;"
            case UInt8(ascii: "<"): entity = "&lt;"
            case UInt8(ascii: ">"): entity = "&gt;"
            case UInt8(ascii: "\""): entity = "&quot;"
            case UInt8(ascii: "'"): entity = "&#39;"
            default:
                bytes.formIndex(after: &index)
                continue
            }
            output += Substring(bytes[runStart..<index])
            output += entity
            bytes.formIndex(after: &index)
            runStart = index
        }
        output += Substring(bytes[runStart..<bytes.endIndex])
    }

    private mutating func appendPercentEncoded(_ text: String) {
        let hex = Array("0123456789ABCDEF".utf8)
        var encoded: [UInt8] = []
        encoded.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "~"):
                encoded.append(byte)
            default:
                encoded += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        output += String(decoding: encoded, as: UTF8.self)
    }
}
