#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Passwords for commands: from an environment variable, or asked at the terminal
/// without echo.
enum Secrets {
    /// The value of `variable`, else a prompt on the terminal; a clear error when neither
    /// is possible (no terminal, e.g. in a script).
    static func password(variable: String, prompt: String, confirm: Bool = false) throws -> String {
        let context = CommandContext.current
        if let value = context.environment[variable], !value.isEmpty { return value }
        guard let first = context.askSecret(prompt) else {
            throw ConfigurationError("no password: set \(variable) or run in a terminal to be asked")
        }
        if confirm {
            guard let second = context.askSecret("repeat: "), second == first else {
                throw ConfigurationError("the two passwords differ")
            }
        }
        return first
    }

    /// Reads one line from the terminal with echo off; nil when there is no terminal.
    static func readWithoutEcho(_ prompt: String) -> String? {
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var original = termios()
        guard tcgetattr(fd, &original) == 0 else { return nil }
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        _ = prompt.withCString { write(fd, $0, strlen($0)) }
        tcsetattr(fd, TCSAFLUSH, &silent)
        let line = readLine(fd)
        tcsetattr(fd, TCSAFLUSH, &original)
        _ = write(fd, "\n", 1)
        return line
    }

    private static func readLine(_ fd: Int32) -> String {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(fd, &byte, 1) == 1, byte != 0x0A {
            if byte != 0x0D { bytes.append(byte) }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
