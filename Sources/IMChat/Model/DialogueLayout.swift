import IMProtocol

/// A dialogue cut into screen lines: the one layout both the view draws and the state
/// scrolls by, so "lines from the bottom" means the same to both.
public struct DialogueLayout: Sendable {
    /// What a line belongs to, for selection.
    public enum Entry: Sendable, Hashable {
        case message(Int64)
        case pending(String)
    }

    /// A piece of a line in one style.
    public struct Span: Sendable, Equatable {
        public var text: String
        public var style: Style
    }

    /// One screen line.
    public struct Line: Sendable, Equatable {
        public var spans: [Span]
        public var entry: Entry?
        /// The "new" divider before the first unread message.
        public var isUnreadDivider = false
    }

    /// Rows of the message area on a screen `rows` high: the title, status, rule and help
    /// rows take four, the input line `composeRows`.
    public static func messageRows(screenRows: Int, composeRows: Int = 1) -> Int {
        max(1, screenRows - 4 - composeRows)
    }

    /// Columns for the sender's name.
    static let nameWidth = 10

    /// Where a message's text starts: after the time, the name and a space each.
    static let textColumn = 5 + 1 + nameWidth + 1

    /// What follows the text of an edited message.
    static let editedMark = " (edited)"

    /// The lines of `state` at `width` columns, its messages on their way (`pending`)
    /// after them; `name` gives the name shown for a username (a nickname). `notices`
    /// (only this user sees them, oldest first) go among the messages by time.
    public static func lines(
        _ state: DialogueState, pending: [Outbox.Item] = [], notices: [Notice] = [], online: Bool = true, me: String,
        width: Int, text: TextLayout, time: TimeFormat, name: (String) -> String = { $0 }
    ) -> [Line] {
        var lines: [Line] = top(state, width: width, text: text, time: time)
        let prefix = textColumn
        let textWidth = max(10, width - prefix)
        let indent = String(repeating: " ", count: prefix)
        // The first day shows in the top line, so older pages going in above never
        // change the lines below them.
        var day = state.messages.first.map { time.day($0.createdAt) }
        let firstUnread = state.firstUnread(me: me)?.seq
        // Notices from before the loaded window wait until paging reaches them.
        var nextNotice = state.reachedStart || state.messages.isEmpty
            ? notices.startIndex
            : notices.firstIndex { $0.createdAt >= state.messages[0].createdAt } ?? notices.endIndex
        for message in state.messages {
            while nextNotice < notices.endIndex, notices[nextNotice].createdAt < message.createdAt {
                lines += noticeLines(notices[nextNotice], state, width: width, text: text, time: time, name: name)
                nextNotice += 1
            }
            let messageDay = time.day(message.createdAt)
            if messageDay != day {
                day = messageDay
                lines.append(Line(spans: [Span(text: divider(messageDay, width: width), style: .muted)]))
            }
            if message.seq == firstUnread {
                lines.append(Line(spans: [Span(text: divider("new", width: width), style: .marker)], isUnreadDivider: true))
            }
            let entry = Entry.message(message.seq)
            let clock = time.clock(message.createdAt)
            if message.type == .system {
                let body = text.wrap(TextLayout.sanitize(message.text), width: max(10, width - 9))
                for (index, part) in body.enumerated() {
                    let lead = index == 0 ? clock + " ── " : String(repeating: " ", count: 9)
                    lines.append(Line(spans: [Span(text: lead + part, style: .system)], entry: entry))
                }
                continue
            }
            let deleted = message.deletedAt != nil
            let mine = message.sender.lowercased() == me.lowercased()
            let nameStyle = mine ? Style.success : Style(foreground: Avatar.color(for: message.sender), bold: true)
            let shownName = text.pad(TextLayout.sanitize(name(message.sender)), width: nameWidth)
            // `/me waves`: "* Alice waves", as IRC clients show an action.
            if !deleted, let action = SlashCommand.action(message.text) {
                let body = text.wrap(TextLayout.sanitize("* " + name(message.sender) + " " + action, keepNewlines: true), width: max(10, width - 6))
                for (index, part) in body.enumerated() {
                    let lead = index == 0 ? clock + " " : "      "
                    lines.append(Line(spans: [Span(text: lead, style: .muted), Span(text: part, style: nameStyle)], entry: entry))
                }
                continue
            }
            var body = deleted ? ["(message deleted)"] : text.wrap(TextLayout.sanitize(message.text, keepNewlines: true), width: textWidth)
            // A reply's quote is the first line of the reply itself, under the sender's name.
            var quote: String?
            if let reply = message.replyTo, !deleted {
                quote = Self.quote(reply, state, width: textWidth, text: text, name: name)
            }
            // "(edited)" ends the last line, or takes one of its own when that is full.
            let edited = !deleted && message.editedAt != nil
            if edited, let last = body.last, text.width(last) + Self.editedMark.count > textWidth { body.append("") }
            let header = [Span(text: clock + " ", style: .muted), Span(text: shownName + " ", style: nameStyle)]
            if let quote {
                lines.append(Line(spans: header + [Span(text: quote, style: .muted)], entry: entry))
            }
            for (index, part) in body.enumerated() {
                var spans = index == 0 && quote == nil ? header : [Span(text: indent, style: .plain)]
                spans.append(Span(text: part, style: deleted ? .muted : .plain))
                if edited, index == body.count - 1 {
                    spans.append(Span(text: part.isEmpty ? String(Self.editedMark.dropFirst()) : Self.editedMark, style: .muted))
                }
                lines.append(Line(spans: spans, entry: entry))
            }
        }
        for notice in notices[nextNotice...] {
            lines += noticeLines(notice, state, width: width, text: text, time: time, name: name)
        }
        for send in pending {
            let entry = Entry.pending(send.clientID)
            let shownText = SlashCommand.action(send.text).map { "* \(name(me)) \($0)" } ?? send.text
            let body = text.wrap(TextLayout.sanitize(shownText, keepNewlines: true), width: textWidth)
            let shownName = text.pad(TextLayout.sanitize(name(me)), width: nameWidth)
            let (mark, note, style): (String, String?, Style) = switch send.state {
            case .sending: ("  …   ", nil, .muted)
            case .waiting where online: ("  …   ", nil, .muted)
            case .waiting, .queued: ("  ◷   ", "queued: goes when the server is back (Tab, select it: d discards)", .muted)
            case .failed(let reason): ("  ✗   ", "not sent: \(reason) (Tab, select it: Enter sends again, d discards)", .error)
            }
            for (index, part) in body.enumerated() {
                let lead = index == 0 ? mark + shownName + " " : indent
                let failed = if case .failed = send.state { true } else { false }
                lines.append(Line(spans: [Span(text: lead, style: style), Span(text: part, style: failed ? .plain : .muted)], entry: entry))
            }
            if let note {
                for part in text.wrap(TextLayout.sanitize(note), width: textWidth) {
                    lines.append(Line(spans: [Span(text: indent + part, style: style)], entry: entry))
                }
            }
        }
        return lines
    }

    /// The quote line of a reply: "↪ name: the text answered", cut to `width`.
    private static func quote(
        _ reply: MessageID, _ state: DialogueState, width: Int, text: TextLayout, name: (String) -> String
    ) -> String {
        let quoted = state.message(reply).map { quoted in
            name(quoted.sender) + ": " + (quoted.deletedAt != nil ? "(message deleted)" : TextLayout.sanitize(quoted.text))
        } ?? "an earlier message"
        return text.truncate("↪ " + quoted, width: width)
    }

    /// What marks a notice: nobody else in the conversation sees it.
    static let noticeMark = "only you can see this"

    /// A notice's lines, dimmed: the sender, what it answers, its text, and the mark.
    private static func noticeLines(
        _ notice: Notice, _ state: DialogueState, width: Int, text: TextLayout, time: TimeFormat,
        name: (String) -> String
    ) -> [Line] {
        let prefix = textColumn
        let textWidth = max(10, width - prefix)
        let indent = String(repeating: " ", count: prefix)
        var body: [String] = []
        if let reply = notice.replyTo { body.append(quote(reply, state, width: textWidth, text: text, name: name)) }
        body += text.wrap(TextLayout.sanitize(notice.text, keepNewlines: true), width: textWidth)
        body.append("· " + noticeMark)
        let header = time.clock(notice.createdAt) + " " + text.pad(TextLayout.sanitize(name(notice.sender)), width: nameWidth) + " "
        return body.enumerated().map { index, part in
            Line(spans: [Span(text: (index == 0 ? header : indent) + part, style: .notice)])
        }
    }

    /// The first lines: where the history stands (a failure to load it whole, wrapped).
    private static func top(_ state: DialogueState, width: Int, text layout: TextLayout, time: TimeFormat) -> [Line] {
        let text: String
        let style: Style
        if state.loadingOlder || !state.loaded {
            (text, style) = (state.loaded ? "  loading older…" : "  loading…", .marker)
        } else if let error = state.historyError {
            let wrapped = layout.wrap(TextLayout.sanitize("! history not loaded: \(error)"), width: max(10, width - 4))
            return wrapped.map { Line(spans: [Span(text: "  " + $0, style: .error)]) }
        } else if state.reachedStart {
            (text, style) = ("  · beginning of the conversation", .muted)
        } else {
            (text, style) = ("  ↑ PgUp for older messages", .muted)
        }
        let day = state.messages.first.map { "  · " + time.day($0.createdAt) } ?? ""
        return [Line(spans: [Span(text: text, style: style), Span(text: day, style: .muted)])]
    }

    private static func divider(_ label: String, width: Int) -> String {
        let side = max(2, (width - label.count - 2) / 2)
        return String(repeating: "─", count: side) + " \(label) " + String(repeating: "─", count: side)
    }
}
