/// One key press (or paste, or wheel turn) as the screens see it.
public enum Key: Hashable, Sendable {
    /// A printable grapheme cluster typed.
    case character(Character)
    /// Text pasted at once (bracketed paste): inserted as it is, never run as keys.
    case paste(String)
    case enter, tab, backTab, backspace, delete, escape
    case up, down, left, right, home, end, pageUp, pageDown
    /// F1…F12.
    case function(Int)
    /// Ctrl with a letter, as the lowercase letter (`control("c")` is Ctrl-C).
    case control(Character)
    /// Alt (or Esc then) a printable character.
    case alt(Character)
    case wheelUp, wheelDown
}
