import Foundation

/// How this terminal draws pictures, if it does: the kitty graphics protocol, sixel
/// graphics, or not at all (avatars are then initials on a colour).
public enum TerminalGraphics: String, Sendable, Equatable {
    case none, kitty, sixel

    /// What the environment says: `SWITCHBOARD_GRAPHICS` (kitty, sixel or none) when
    /// set, else kitty for the terminals known to draw its images (kitty, WezTerm,
    /// Ghostty); nil when only asking the terminal can tell (sixel).
    public static func fromEnvironment(_ environment: [String: String]) -> TerminalGraphics? {
        if let chosen = environment["SWITCHBOARD_GRAPHICS"].flatMap({ TerminalGraphics(rawValue: $0.lowercased()) }) {
            return chosen
        }
        if environment["TERM"] == "xterm-kitty" || environment["KITTY_WINDOW_ID"] != nil { return .kitty }
        if let program = environment["TERM_PROGRAM"]?.lowercased(), program == "wezterm" || program == "ghostty" {
            return .kitty
        }
        // Inside tmux or screen nothing reaches the terminal behind them unchanged.
        if environment["TMUX"] != nil || environment["TERM"]?.hasPrefix("screen") == true { return TerminalGraphics.none }
        return nil
    }

    /// The question whose answer tells sixel terminals apart: Primary Device Attributes.
    public static let attributesQuery = "\u{1B}[c"

    /// Sixel when the terminal's answer to `attributesQuery` (`ESC [ ? 62 ; 4 ; … c`)
    /// lists attribute 4, sixel graphics.
    public static func fromAttributes(_ answer: [UInt8]) -> TerminalGraphics {
        let text = String(decoding: answer, as: UTF8.self)
        guard let start = text.range(of: "\u{1B}[?"), let end = text[start.upperBound...].firstIndex(of: "c") else {
            return .none
        }
        let attributes = text[start.upperBound..<end].split(separator: ";")
        return attributes.dropFirst().contains("4") ? .sixel : .none
    }
}
