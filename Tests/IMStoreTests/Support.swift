import Foundation
import IMProtocol
import IMStore
import Synchronization
import TestSupport
import Testing

/// A directory of its own under the system's temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("imstore-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    var path: String { url.path }

    /// The path of a file inside the directory.
    func file(_ name: String) -> String { url.appendingPathComponent(name).path }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// A clock the test moves by hand; with a `step`, every reading also advances it, so
/// successive writes get distinct, ordered times.
final class TestClock: Sendable {
    static let start: Int64 = 1_800_000_000_000
    private let state: Mutex<Int64>
    private let step: Int64

    init(at milliseconds: Int64 = TestClock.start, step: Int64 = 0) {
        state = Mutex(milliseconds)
        self.step = step
    }

    var now: Timestamp { Timestamp(milliseconds: state.withLock { $0 }) }

    func advance(milliseconds: Int64) { state.withLock { $0 += milliseconds } }

    /// The closure handed to the store.
    var function: @Sendable () -> Timestamp {
        { [self] in
            Timestamp(milliseconds: state.withLock { value in
                let current = value
                value += step
                return current
            })
        }
    }
}

/// The store file inside a store directory.
func storePath(_ directory: TemporaryDirectory) -> String { directory.file("switchboard.sqlite") }

/// Opens a store in `directory` with test settings.
func openStore(_ directory: TemporaryDirectory, clock: TestClock = TestClock(step: 1)) throws -> SQLiteStore {
    try SQLiteStore(directory: directory.path, readers: 2, synchronous: .normal, clock: clock.function)
}

/// Runs `body` with a fresh store of `kind` and its fixture; closes and removes both after.
func withStore<T>(
    _ kind: StoreKind, clock: TestClock = TestClock(step: 1),
    _ body: (any ServerStore, StoreFixture) async throws -> T
) async throws -> T {
    let fixture = try await StoreFixture.make(kind)
    return try await ensuring({
        try await closing(try await fixture.open(clock: clock)) { store in try await body(store, fixture) }
    }) {
        await fixture.remove()
    }
}

/// Runs `body` with a fresh store of `kind`; closes and removes it after.
func withStore<T>(
    _ kind: StoreKind, clock: TestClock = TestClock(step: 1), _ body: (any ServerStore) async throws -> T
) async throws -> T {
    try await withStore(kind, clock: clock) { store, _ in try await body(store) }
}

/// A database or a store: closed asynchronously, waiting for its threads.
protocol Closable {
    func close() async
}

extension SQLiteDatabase: Closable {}
extension SQLiteStore: Closable {}

/// Runs `body` with `resource`, then closes it however `body` ends.
func closing<Resource: Closable, T>(_ resource: Resource, _ body: (Resource) async throws -> T) async throws -> T {
    try await ensuring({ try await body(resource) }) { await resource.close() }
}

/// Runs `body` with `store`, then closes it however `body` ends.
func closing<T>(_ store: any ServerStore, _ body: (any ServerStore) async throws -> T) async throws -> T {
    try await ensuring({ try await body(store) }) { await store.close() }
}

extension ServerStore {
    /// Creates an account named `name` with nickname `Name`.
    func makeUser(_ name: String, isBot: Bool = false) async throws -> UserRecord {
        try await createUser(
            NewUser(username: name, passwordHash: "hash-of-\(name)", nickname: name.capitalized, isBot: isBot))
    }

    /// Creates a group (or room) by `owner` and adds `members` to it.
    func makeGroup(_ name: String, owner: UserID, members: [UserID] = [], kind: ConversationKind = .group)
        async throws -> ConversationRecord
    {
        let record = try await createConversation(
            kind: kind, name: name, title: "", description: "", logoURL: "", creator: owner)
        for member in members {
            _ = try await addMember(
                record.id, member, role: .member,
                change: MembershipChange(event: .memberJoined, notice: "\(member) joined"))
        }
        return try #require(try await conversation(id: record.id))
    }

    /// Appends a chat message.
    @discardableResult
    func send(_ text: String, to conversation: ConversationID, from sender: UserID, clientID: String? = nil)
        async throws -> Message
    {
        try await appendMessage(
            NewMessage(conversationID: conversation, senderID: sender, text: text, clientMessageID: clientID)
        ).message
    }

    /// The whole retained feed of one user (from its floor).
    func feed(_ user: UserID) async throws -> [Event] {
        let floor = try await self.user(id: user)?.feedFloor ?? 0
        return try await events(for: user, after: floor, limit: 100_000)
    }
}

extension StoreError {
    /// The case without its message, for comparisons in tests.
    var kind: String {
        switch self {
        case .conflict: "conflict"
        case .notFound: "notFound"
        case .closed: "closed"
        case .incompatibleSchema: "incompatibleSchema"
        case .internalFailure: "internalFailure"
        case .notMember: "notMember"
        case .muted: "muted"
        case .restricted: "restricted"
        case .banned: "banned"
        case .slowMode: "slowMode"
        case .blocked: "blocked"
        case .refused(let reason, _): "refused(\(reason))"
        case .invalidState: "invalidState"
        case .invalidReference: "invalidReference"
        case .cursorTooOld: "cursorTooOld"
        case .overBudget: "overBudget"
        case .leaseLost: "leaseLost"
        case .quotaExceeded: "quotaExceeded"
        case .tooManyRecords: "tooManyRecords"
        }
    }
}

/// An error a test throws on purpose from a write job.
struct Deliberate: Error, Equatable {
    var index: Int
}

/// Holds a database's writer thread inside one write job until released, so a test can
/// queue jobs behind it and know they will be taken together.
final class WriterHold: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let entered: AsyncStream<Void>
    private let enteredContinuation: AsyncStream<Void>.Continuation

    init() {
        (entered, enteredContinuation) = AsyncStream.makeStream(of: Void.self)
    }

    /// The body of the holding job: reports that the writer is held, then blocks it.
    func hold() {
        enteredContinuation.yield()
        semaphore.wait()
    }

    /// Returns once `hold()` runs on the writer thread.
    func waitUntilHeld() async {
        for await _ in entered { return }
    }

    func release() { semaphore.signal() }
}

/// Counts events reported from many tasks; a test awaits a number of them.
struct Arrivals: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() { (stream, continuation) = AsyncStream.makeStream(of: Void.self) }

    func arrive() { continuation.yield() }

    /// Returns after `count` arrivals.
    func wait(for count: Int) async {
        var seen = 0
        guard count > 0 else { return }
        for await _ in stream {
            seen += 1
            if seen == count { return }
        }
    }
}

/// A value shared between a test and database threads.
final class Shared<Value: Sendable>: Sendable {
    private let state: Mutex<Value>
    init(_ value: Value) { state = Mutex(value) }
    var value: Value { state.withLock { $0 } }
    func update<R>(_ body: (inout Value) -> R) -> R { state.withLock { body(&$0) } }
}

/// The outcome of an async throwing call as a value.
func outcome<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
    do { return .success(try await body()) } catch { return .failure(error) }
}
