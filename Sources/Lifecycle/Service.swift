/// A long-running part of the program: it runs until its task is cancelled, then drains
/// (finishes or hands back what it holds) and returns.
///
/// Returning early or throwing ends the whole ``ServiceGroup`` it runs in.
public protocol Service: Sendable {
    /// A short name for logs ("http", "bot helpdesk").
    var name: String { get }
    /// Does the work until cancelled; returns once drained.
    func run() async throws
}

/// A service made of a name and a function, for small parts that need no type of their own.
public struct FunctionService: Service {
    public let name: String
    private let body: @Sendable () async throws -> Void

    public init(_ name: String, _ body: @escaping @Sendable () async throws -> Void) {
        self.name = name
        self.body = body
    }

    public func run() async throws { try await body() }
}

extension Task where Success == Never, Failure == Never {
    /// Suspends until the current task is cancelled: the body of a service whose work
    /// happens elsewhere (on C threads, say) and that only has to stop on cancellation.
    public static func waitForCancellation() async {
        let latch = Latch()
        await withTaskCancellationHandler {
            await latch.wait()
        } onCancel: {
            latch.open()
        }
    }
}
