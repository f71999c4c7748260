import Dispatch
import Foundation
import IMClient
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `switchboard chat`: the screens in a real terminal.
///
/// One loop owns the state: it takes inputs (keys from the reader thread, the terminal's
/// size on SIGWINCH, the answers of commands, live events), hands each to
/// `ChatModel.handle`, carries out the commands it returns (each in a child task) and
/// draws the new frame, of which only the changed cells are sent. The live stream runs
/// in a task of its own, restarted on reconnect and cancelled on logout and exit.
public struct ChatApp: Sendable {
    /// What the app was started with.
    public let configuration: ChatConfiguration

    /// An app for `configuration`.
    public init(configuration: ChatConfiguration) {
        self.configuration = configuration
    }

    /// What reaches the loop.
    private enum Input: Sendable {
        case model(ChatInput)
        /// The screen may have been changed behind our back (resumed from Ctrl-Z or SIGSTOP).
        case redraw
    }

    /// Runs until the user quits, the terminal goes away, or the task is cancelled
    /// (SIGINT, SIGTERM); the terminal is restored in every case.
    public func run() async throws {
        let terminal = try Terminal(mouse: configuration.mouse)
        let (inputs, continuation) = AsyncStream<Input>.makeStream()
        try terminal.start()
        // Pictures: what the environment says, else what the terminal answers about sixel.
        let graphics = configuration.graphics
            ?? TerminalGraphics.fromAttributes(terminal.ask(TerminalGraphics.attributesQuery, final: UInt8(ascii: "c"), timeout: 300))
        let pictures = Pictures(graphics: graphics)
        if let cell = terminal.cellPixels { pictures.setCellSize(width: cell.width, height: cell.height) }
        let effects = ChatEffectRunner(configuration: configuration, pictures: graphics == .none ? nil : pictures)
        // Live events waiting in `inputs`: the live task waits while too many are, so a
        // burst from the server cannot grow the queue without bound.
        let queuedLive = Backlog()
        let reader = TerminalReader(fd: terminal.input) { keys in
            guard let keys else {
                continuation.yield(.model(.terminalClosed))  // nobody is there to ask
                return
            }
            for key in keys { continuation.yield(.model(.key(key))) }
        }
        let signals = [SIGWINCH, SIGCONT].map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if number == SIGWINCH {
                    if let cell = terminal.cellPixels { pictures.setCellSize(width: cell.width, height: cell.height) }
                    let size = terminal.size
                    continuation.yield(.model(.resize(columns: size.columns, rows: size.rows)))
                } else {
                    continuation.yield(.redraw)
                }
            }
            source.resume()
            return source
        }
        reader.start()
        var live: Task<Void, Never>?
        // The title is the terminal's: the old one is saved on xterm's title stack and put back.
        if configuration.title { terminal.write("\u{1B}[22;0t") }
        defer {
            for source in signals { source.cancel() }
            signal(SIGWINCH, SIG_DFL)
            signal(SIGCONT, SIG_DFL)
            if configuration.title { terminal.write("\u{1B}[23;0t") }
            terminal.stop()
        }
        let size = terminal.size
        var model = ChatModel(
            server: configuration.server, columns: size.columns, rows: size.rows, widths: configuration.widths,
            time: .local, idPrefix: "chat-" + UUID().uuidString.lowercased().prefix(8))
        model.bell = configuration.bell
        model.graphics = graphics
        var renderer = ScreenRenderer(graphics: graphics, picture: pictures.bytes)
        var shownTitle = ""
        func draw() {
            var bytes = renderer.render(ChatView.render(model))
            if configuration.title {
                let title = TerminalText.sanitize(ChatView.terminalTitle(model))
                if title != shownTitle {
                    shownTitle = title
                    bytes += "\u{1B}]2;\(title)\u{07}"
                }
            }
            terminal.write(bytes)
        }

        func startLive() {
            live?.cancel()
            guard let client = effects.client else { return }
            let options = configuration.events
            live = Task {
                let cursor = LiveCursor { continuation.yield(.model(.liveReady)) }
                do {
                    for try await item in client.events(cursor: cursor, options: options) {
                        queuedLive.count.add(1, ordering: .relaxed)
                        continuation.yield(.model(.live(item)))
                        while queuedLive.count.load(ordering: .relaxed) > 500, !Task.isCancelled {
                            try? await Task.sleep(for: .milliseconds(5))
                        }
                    }
                    continuation.yield(.model(.liveEnded(nil)))
                } catch let error as IMClientError {
                    // A stream stopped on purpose (restart, logout, exit) ended nothing.
                    let stopped = Task.isCancelled || error.code == .cancelled
                    continuation.yield(.model(.liveEnded(stopped ? nil : error)))
                } catch {
                    continuation.yield(.model(.liveEnded(IMClientError(.transport, "\(error)"))))
                }
            }
        }

        await withTaskCancellationHandler {
            await withDiscardingTaskGroup { group in
                var quit = false
                func carryOut(_ commands: [ChatEffect]) {
                    for command in commands {
                        switch command {
                        case .quit: quit = true
                        case .redraw: renderer.invalidate()
                        case .suspend:
                            terminal.suspend()
                            renderer.invalidate()
                        case .startLive: startLive()
                        case .bell: if configuration.bell { terminal.write("\u{07}") }
                        case .wake(let seconds):
                            group.addTask {
                                try? await Task.sleep(for: .seconds(seconds))
                                continuation.yield(.model(.wake))
                            }
                        case .logout:
                            live?.cancel()
                            live = nil
                            fallthrough
                        default:
                            group.addTask {
                                if let result = await effects.perform(command) { continuation.yield(.model(.result(result))) }
                            }
                        }
                    }
                }
                carryOut(model.start())
                draw()
                for await input in inputs {
                    switch input {
                    case .model(let event):
                        if case .live = event { queuedLive.count.subtract(1, ordering: .relaxed) }
                        carryOut(model.handle(event))
                    case .redraw:
                        let size = terminal.size
                        carryOut(model.handle(.resize(columns: size.columns, rows: size.rows)))
                        renderer.invalidate()
                    }
                    if quit { break }
                    draw()
                }
                live?.cancel()
                group.cancelAll()
            }
        } onCancel: {
            continuation.finish()
        }
        live?.cancel()
        await live?.value
        await reader.stop()
    }
}

/// How many live events wait in the loop's queue.
private final class Backlog: Sendable {
    let count = Atomic<Int>(0)
}
