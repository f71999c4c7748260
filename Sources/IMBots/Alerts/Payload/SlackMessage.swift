import Foundation
import Templates

/// A Slack incoming-webhook message (`format: slack`), as Alertmanager's `slack_configs`
/// and most tools send it (Mattermost and Zulip take the same): `text`, `blocks` and
/// legacy `attachments`, rendered together to plain text, with `username`, `icon_emoji`,
/// `icon_url` and `channel` kept as they came.
///
/// Rules see the body's fields, with `text` the whole rendering: a rule's `send` posts
/// `{{payload.text}}` (and may name `{{payload.username}}`).
public struct SlackMessage: Sendable, Hashable {
    /// Everything the message says, as plain text.
    public var text: String
    public var fields: [String: TemplateValue]

    /// Blocks and attachments rendered at most; what a message has past these is not shown.
    static let maxItems = 100

    init(reading value: TemplateValue, limits: PayloadLimits) throws(AlertPayloadError) {
        let reader = try PayloadReader(value, path: "", limits: limits)
        for key in ["username", "icon_emoji", "icon_url", "channel"] { _ = try reader.optionalString(key) }
        var parts: [String] = []
        if let text = try reader.optionalString("text"), !text.isEmpty { parts.append(Self.mrkdwn(text)) }
        if let blocks = reader.optional("blocks") {
            guard case .array(let items) = blocks else {
                throw AlertPayloadError(.invalidField, field: "blocks", "blocks must be a list, got \(blocks.jsonKind)")
            }
            parts += items.prefix(Self.maxItems).compactMap(Self.block)
        }
        if let attachments = reader.optional("attachments") {
            guard case .array(let items) = attachments else {
                throw AlertPayloadError(.invalidField, field: "attachments",
                                        "attachments must be a list, got \(attachments.jsonKind)")
            }
            parts += items.prefix(Self.maxItems).compactMap(Self.attachment)
        }
        let text = parts.filter { !$0.isEmpty }.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else {
            throw AlertPayloadError(.missingField, field: "text", "the message has no text, blocks or attachments to show")
        }
        self.text = text
        fields = reader.members
    }

    /// The body's fields, `text` the rendering.
    public var templateValue: TemplateValue {
        var members = fields
        members["text"] = .string(text)
        for key in ["username", "icon_emoji", "icon_url", "channel"] where members[key] == nil { members[key] = .string("") }
        return .object(members)
    }

    // MARK: Rendering

    private static func string(_ value: TemplateValue?) -> String? {
        if case .string(let text)? = value, !text.isEmpty { return text }
        return nil
    }

    private static func members(_ value: TemplateValue?) -> [String: TemplateValue] {
        if case .object(let members)? = value { return members }
        return [:]
    }

    private static func list(_ value: TemplateValue?) -> [TemplateValue] {
        if case .array(let items)? = value { return Array(items.prefix(maxItems)) }
        return []
    }

    /// A text object (`{"type":"mrkdwn"|"plain_text","text":…}`) as plain text.
    private static func textObject(_ value: TemplateValue?) -> String? {
        let object = members(value)
        guard let text = string(object["text"]) else { return nil }
        return string(object["type"]) == "plain_text" ? text : mrkdwn(text)
    }

    /// One block of Block Kit.
    static func block(_ value: TemplateValue) -> String? {
        let block = members(value)
        switch string(block["type"]) ?? "" {
        case "header":
            return textObject(block["text"])
        case "section":
            var lines = [textObject(block["text"])].compactMap { $0 }
            lines += list(block["fields"]).compactMap(textObject)
            return lines.joined(separator: "\n")
        case "context":
            return list(block["elements"]).compactMap { element in
                textObject(element) ?? string(members(element)["alt_text"])
            }.joined(separator: " ")
        case "divider":
            return "---"
        case "image":
            let title = textObject(block["title"]) ?? string(block["alt_text"]) ?? "image"
            return string(block["image_url"]).map { "\(title): \($0)" } ?? title
        case "rich_text":
            return list(block["elements"]).map(richText).joined(separator: "\n")
        default:
            return textObject(block["text"])
        }
    }

    /// A rich text element: a section, list, quote or preformatted run.
    private static func richText(_ value: TemplateValue) -> String {
        let element = members(value)
        let type = string(element["type"]) ?? ""
        if type == "rich_text_list" {
            let ordered = string(element["style"]) == "ordered"
            return list(element["elements"]).enumerated().map { index, item in
                (ordered ? "\(index + 1). " : "• ") + richText(item)
            }.joined(separator: "\n")
        }
        let text = list(element["elements"]).map { part -> String in
            let piece = members(part)
            switch string(piece["type"]) ?? "" {
            case "text": return string(piece["text"]) ?? ""
            case "link":
                let url = string(piece["url"]) ?? ""
                guard let label = string(piece["text"]), label != url else { return url }
                return "\(label) (\(url))"
            case "user": return "@" + (string(piece["user_id"]) ?? "")
            case "usergroup": return "@" + (string(piece["usergroup_id"]) ?? "")
            case "channel": return "#" + (string(piece["channel_id"]) ?? "")
            case "emoji": return ":" + (string(piece["name"]) ?? "") + ":"
            case "broadcast": return "@" + (string(piece["range"]) ?? "here")
            default: return string(piece["text"]) ?? ""
            }
        }.joined()
        return type == "rich_text_quote" ? "> " + text : text
    }

    /// One legacy attachment: pretext, author, title (with its link), text, fields and
    /// footer; its fallback when it has none of them.
    static func attachment(_ value: TemplateValue) -> String? {
        let attachment = members(value)
        var lines: [String] = []
        if let pretext = string(attachment["pretext"]) { lines.append(mrkdwn(pretext)) }
        if let author = string(attachment["author_name"]) { lines.append(author) }
        if let title = string(attachment["title"]) {
            let shown = mrkdwn(title)
            lines.append(string(attachment["title_link"]).map { "\(shown) (\($0))" } ?? shown)
        }
        if let text = string(attachment["text"]) { lines.append(mrkdwn(text)) }
        for field in list(attachment["fields"]) {
            let object = members(field)
            let title = string(object["title"]).map(mrkdwn)
            let value = string(object["value"]).map(mrkdwn)
            switch (title, value) {
            case let (title?, value?): lines.append("\(title): \(value)")
            case let (title?, nil): lines.append(title)
            case let (nil, value?): lines.append(value)
            default: break
            }
        }
        lines += list(attachment["blocks"]).compactMap(block)
        if let footer = string(attachment["footer"]) { lines.append(mrkdwn(footer)) }
        if lines.isEmpty, let fallback = string(attachment["fallback"]) { lines.append(fallback) }
        return lines.isEmpty ? nil : lines.joined(separator: "\n")
    }

    /// Slack's mrkdwn as plain text: links `<url|label>` as `label (url)`, mentions as
    /// `@name`, `&amp;`, `&lt;` and `&gt;` decoded, and `*bold*`, `_italic_` and
    /// `~strike~` markers dropped where they pair on a line.
    static func mrkdwn(_ text: String) -> String {
        var out = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "<") {
            out += rest[..<open]
            guard let close = rest[open...].firstIndex(of: ">") else {
                rest = rest[open...]
                break
            }
            out += reference(rest[rest.index(after: open)..<close])
            rest = rest[rest.index(after: close)...]
        }
        out += rest
        let lines = out.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            ["*", "_", "~"].reduce(String(line)) { dropPaired($1, in: $0) }
        }
        return lines.joined(separator: "\n")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    /// What `<…>` stands for.
    private static func reference(_ inner: Substring) -> String {
        let parts = inner.split(separator: "|", maxSplits: 1).map(String.init)
        let target = parts.first ?? ""
        let label = parts.count > 1 ? parts[1] : nil
        switch target.first {
        case "@": return label.map { $0.hasPrefix("@") ? $0 : "@" + $0 } ?? target
        case "#": return "#" + (label ?? String(target.dropFirst()))
        case "!":
            let name = target.dropFirst().split(separator: "^").first.map(String.init) ?? ""
            if let label { return label }
            return ["here", "channel", "everyone"].contains(name) ? "@" + name : name
        default:
            let url = target.hasPrefix("mailto:") ? String(target.dropFirst("mailto:".count)) : target
            guard let label, label != url else { return url }
            return "\(label) (\(url))"
        }
    }

    /// `marker`s that open after a space (or the start) and close before one (or the
    /// end) are dropped; others stay (`2*3`, `snake_case`).
    private static func dropPaired(_ marker: Character, in line: String) -> String {
        let characters = Array(line)
        var keep = [Bool](repeating: true, count: characters.count)
        var open: Int?
        for (index, character) in characters.enumerated() where character == marker {
            let before = index == 0 ? nil : characters[index - 1]
            let after = index + 1 < characters.count ? characters[index + 1] : nil
            if let start = open {
                if before.map({ !$0.isWhitespace }) ?? false, after.map({ !$0.isLetter && !$0.isNumber }) ?? true {
                    keep[start] = false
                    keep[index] = false
                    open = nil
                }
            } else if before.map({ !$0.isLetter && !$0.isNumber }) ?? true, after.map({ !$0.isWhitespace }) ?? false {
                open = index
            }
        }
        return String(zip(characters, keep).filter(\.1).map(\.0))
    }
}
