/// One key press (or paste, or wheel turn) as the screens see it.
public enum Key: Hashable, Sendable {
    /// A printable grapheme cluster typed.
    case character(Character)
    /// Text pasted at once (bracketed paste): inserted as it is, never run as keys.
    case paste(String)
    case enter, tab, backTab, backspace, delete, escape
    /// Alt-Enter (and Shift-Enter where the terminal reports it): a line break in the text.
    case newline
    case up, down, left, right, home, end, pageUp, pageDown
    /// F1…F12.
    case function(Int)
    /// Ctrl with a letter, as the lowercase letter (`control("c")` is Ctrl-C).
    case control(Character)
    /// Alt with a printable character: Meta, as terminals send it (Esc, then the
    /// character at once). Never Esc followed by that key.
    case alt(Character)
    case wheelUp, wheelDown
}
