/// A user's, group's or room's picture in a terminal: up to two initials on a colour
/// picked from the name, so the same name always looks the same.
public struct Avatar: Sendable, Equatable {
    /// One or two letters (or one wide character), two columns in all.
    public var initials: String
    public var color: Style.Color

    /// The avatar for `name` (a nickname or title), coloured by `key` (the unique name).
    public init(name: String, key: String, widths: WidthTable = .standard) {
        initials = Self.initials(of: name, widths: widths)
        color = Self.color(for: key)
    }

    /// The style the initials are drawn in.
    public var style: Style { Style(foreground: .black, background: color, bold: true) }

    static let palette: [Style.Color] = [.red, .green, .yellow, .blue, .magenta, .cyan, .brightRed, .brightGreen, .brightBlue, .brightMagenta]

    /// A colour from `key`'s FNV-1a hash: stable across runs, unlike `Hasher`.
    public static func color(for key: String) -> Style.Color {
        var hash: UInt32 = 0x811C_9DC5
        for byte in key.lowercased().utf8 {
            hash ^= UInt32(byte)
            hash &*= 0x0100_0193
        }
        return palette[Int(hash % UInt32(palette.count))]
    }

    /// `Alice Smith` → `AS`, `bob` → `BO`, `张伟` → `张`: exactly two columns.
    static func initials(of name: String, widths: WidthTable) -> String {
        let clean = TextLayout.sanitize(name).filter { !$0.isWhitespace && $0 != "_" && $0 != "-" && $0 != "." }
        guard let first = clean.first else { return "??" }
        if widths.width(of: first) == 2 { return String(first) }
        let words = TextLayout.sanitize(name).split(whereSeparator: { $0 == " " || $0 == "_" || $0 == "-" || $0 == "." })
        var second: Character?
        if words.count >= 2, let letter = words[1].first, widths.width(of: letter) == 1 {
            second = letter
        } else {
            second = clean.dropFirst().first { widths.width(of: $0) == 1 }
        }
        return (String(first) + (second.map(String.init) ?? " ")).uppercased()
    }
}
