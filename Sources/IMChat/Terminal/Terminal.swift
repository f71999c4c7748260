import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The controlling terminal: raw mode, the alternate screen, its size, output, and
/// putting everything back.
///
/// `start` saves the terminal's settings and switches to raw mode (no echo, no line
/// editing, no signals from Ctrl-C or Ctrl-Z: the client handles those keys itself);
/// `stop` restores them and must run however the program ends. Normal ends and
/// cancellation (SIGINT, SIGTERM) reach `stop` through `defer`; a crash (a trap, a
/// segmentation fault, an abort) reaches `FatalSignalRestore`, which restores the
/// settings from inside the signal handler before the default action runs.
public final class Terminal: Sendable {
    /// The file descriptors: input is read in raw mode, output gets the frames.
    public let input: Int32
    public let output: Int32
    /// Whether the mouse wheel is reported (it takes text selection away from the terminal).
    public let mouse: Bool

    private struct State {
        var saved: termios?
    }

    private let state = Mutex(State())

    /// The terminal on `input` and `output`; fails when either is not a terminal.
    public init(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO, mouse: Bool = false)
        throws(TerminalError)
    {
        guard isatty(input) == 1, isatty(output) == 1 else {
            throw TerminalError("switchboard chat needs a terminal (standard input and output are not one)")
        }
        self.input = input
        self.output = output
        self.mouse = mouse
    }

    /// The size in columns and rows (80×24 when the terminal does not say).
    public var size: (columns: Int, rows: Int) {
        var size = winsize()
        guard ioctl(output, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return (80, 24) }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    /// The size of one cell in pixels, when the terminal reports it.
    public var cellPixels: (width: Int, height: Int)? {
        var size = winsize()
        guard ioctl(output, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0, size.ws_xpixel > 0,
            size.ws_ypixel > 0
        else { return nil }
        return (Int(size.ws_xpixel) / Int(size.ws_col), Int(size.ws_ypixel) / Int(size.ws_row))
    }

    /// Sends `query` and reads the answer up to and including `final`, for at most
    /// `timeout` milliseconds (a terminal that does not answer costs that once). Only
    /// before the input is read for keys.
    public func ask(_ query: String, final: UInt8, timeout: Int32) -> [UInt8] {
        write(query)
        var answer: [UInt8] = []
        var byte: UInt8 = 0
        while answer.count < 256 {
            var descriptor = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, timeout) > 0, read(input, &byte, 1) == 1 else { break }
            answer.append(byte)
            if byte == final, answer.count > 2 { break }
        }
        return answer
    }

    /// Raw mode, the alternate screen, bracketed paste, and (if asked) wheel reports.
    public func start() throws(TerminalError) {
        var settings = termios()
        guard tcgetattr(input, &settings) == 0 else { throw TerminalError("cannot read the terminal's settings", errno) }
        let saved = settings
        cfmakeraw(&settings)
        // Keep output post-processing off (cfmakeraw does) but read one byte at a time.
        withUnsafeMutableBytes(of: &settings.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(input, TCSAFLUSH, &settings) == 0 else {
            throw TerminalError("cannot switch the terminal to raw mode", errno)
        }
        state.withLock { $0.saved = saved }
        let enter = Self.enterSequence(mouse: mouse)
        FatalSignalRestore.arm(fd: input, saved: saved, output: output, bytes: Self.leaveSequence(mouse: mouse))
        write(enter)
    }

    /// Puts the terminal back as `start` found it; safe to call more than once.
    public func stop() {
        guard let saved = state.withLock({ state -> termios? in
            defer { state.saved = nil }
            return state.saved
        }) else { return }
        write(Self.leaveSequence(mouse: mouse))
        var settings = saved
        tcsetattr(input, TCSAFLUSH, &settings)
        FatalSignalRestore.disarm()
    }

    /// Ctrl-Z: restores the terminal, stops the process as the shell expects, and
    /// returns to raw mode when the shell resumes it (the caller then redraws in full).
    public func suspend() {
        stop()
        kill(getpid(), SIGTSTP)
        try? start()
    }

    /// Writes every byte of `text`.
    public func write(_ text: String) {
        var bytes = Array(text.utf8)
        Self.writeAll(output, &bytes)
    }

    static func writeAll(_ fd: Int32, _ bytes: inout [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(fd, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    return
                }
                offset += written
            }
        }
    }

    static func enterSequence(mouse: Bool) -> String {
        "\u{1B}[?1049h\u{1B}[?2004h\u{1B}[?25l" + (mouse ? "\u{1B}[?1000h\u{1B}[?1006h" : "")
    }

    static func leaveSequence(mouse: Bool) -> String {
        (mouse ? "\u{1B}[?1006l\u{1B}[?1000l" : "") + "\u{1B}[0m\u{1B}[?2004l\u{1B}[?25h\u{1B}[?1049l"
    }
}

/// Why the terminal cannot be used.
public struct TerminalError: Error, Sendable, CustomStringConvertible {
    /// What failed, with the system's reason.
    public var description: String

    init(_ what: String, _ code: Int32? = nil) {
        description = code.map { "\(what): \(String(cString: strerror($0)))" } ?? what
    }
}
