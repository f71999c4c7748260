/// The look of one cell: the 16 ANSI colours and a few attributes every terminal has.
public struct Style: Hashable, Sendable {
    /// One of the 16 ANSI colours (0-7 normal, 8-15 bright).
    public struct Color: Hashable, Sendable {
        /// The colour number, 0...15.
        public let index: UInt8
        /// Colour `index` (taken modulo 16).
        public init(_ index: UInt8) { self.index = index % 16 }

        public static let black = Color(0), red = Color(1), green = Color(2), yellow = Color(3)
        public static let blue = Color(4), magenta = Color(5), cyan = Color(6), white = Color(7)
        public static let gray = Color(8), brightRed = Color(9), brightGreen = Color(10)
        public static let brightYellow = Color(11), brightBlue = Color(12), brightMagenta = Color(13)
        public static let brightCyan = Color(14), brightWhite = Color(15)
    }

    /// Text colour; nil is the terminal's default.
    public var foreground: Color?
    /// Background colour; nil is the terminal's default.
    public var background: Color?
    public var bold = false
    public var dim = false
    public var underline = false
    public var reverse = false

    /// A style; all defaults is the terminal's plain text.
    public init(
        foreground: Color? = nil, background: Color? = nil, bold: Bool = false, dim: Bool = false,
        underline: Bool = false, reverse: Bool = false
    ) {
        self.foreground = foreground
        self.background = background
        self.bold = bold
        self.dim = dim
        self.underline = underline
        self.reverse = reverse
    }

    /// Plain text.
    public static let plain = Style()

    /// The SGR sequence that sets exactly this style (starting from a reset).
    var sgr: String {
        var codes = ["0"]
        if bold { codes.append("1") }
        if dim { codes.append("2") }
        if underline { codes.append("4") }
        if reverse { codes.append("7") }
        if let foreground {
            codes.append(String(foreground.index < 8 ? 30 + Int(foreground.index) : 82 + Int(foreground.index)))
        }
        if let background {
            codes.append(String(background.index < 8 ? 40 + Int(background.index) : 92 + Int(background.index)))
        }
        return "\u{1B}[" + codes.joined(separator: ";") + "m"
    }
}

extension Style {
    // The palette of the screens, in one place.
    static let title = Style(reverse: true)
    static let titleBold = Style(bold: true, reverse: true)
    static let help = Style(foreground: .gray)
    static let helpKey = Style(foreground: .cyan)
    static let selected = Style(reverse: true)
    static let heading = Style(foreground: .cyan, bold: true)
    static let muted = Style(foreground: .gray)
    static let warning = Style(foreground: .yellow, bold: true)
    static let error = Style(foreground: .red, bold: true)
    static let success = Style(foreground: .green)
    static let unread = Style(foreground: .black, background: .yellow, bold: true)
    static let field = Style(underline: true)
    static let focusedField = Style(foreground: .brightWhite, background: .blue)
    static let system = Style(foreground: .magenta)
    /// A notice only this user sees: dimmed.
    static let notice = Style(dim: true)
    static let marker = Style(foreground: .yellow)
}
