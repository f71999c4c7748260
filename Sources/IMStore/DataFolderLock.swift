import Foundation
import Lifecycle

/// The lock a server holds on its data folder while it runs (`DIR/switchboard.lock`, a
/// `FileLock`): a second server on the same folder, or a restore into it, is refused
/// instead of the two sharing one database behind each other's back.
///
/// `switchboard user --data` and `switchboard backup` do not take it: SQLite lets them
/// work beside a running server.
public final class DataFolderLock: Sendable {
    /// The lock file's name inside the data folder.
    public static let fileName = "switchboard.lock"

    private let lock: FileLock

    /// Takes the lock on `directory` (which must exist), or throws naming the process
    /// that holds it.
    public init(directory: String) throws(DataFolderLock.Held) {
        let path = (directory as NSString).appendingPathComponent(Self.fileName)
        do {
            lock = try FileLock(path: path)
        } catch {
            switch error {
            case .held(let pid): throw Held(folder: directory, holder: pid, reason: nil)
            case .cannotOpen(let reason): throw Held(folder: directory, holder: nil, reason: "cannot open \(path): \(reason)")
            }
        }
    }

    /// Lets another process take the folder; safe to call more than once.
    public func release() { lock.release() }

    /// The folder is locked by another process (or the lock file cannot be opened).
    public struct Held: Error, CustomStringConvertible, Sendable {
        public var folder: String
        /// The pid written in the lock file by the process holding it, when known.
        public var holder: String?
        /// Set when the lock file itself could not be opened.
        public var reason: String?

        public var description: String {
            reason ?? "a switchboard server is running on the data folder \(folder)\(holder.map { " (pid \($0))" } ?? ""); stop it first"
        }
    }
}
