import Foundation
import IMProtocol
import IMStore
import Synchronization

/// One committed batch's feed update as the parked polls it wakes are answered from it.
///
/// Each event of the update has one position in every feed it reaches, so its bytes are
/// the same in every answer that carries it (one encoding for all members of a group,
/// one per side of a direct conversation): it is encoded once, by the first poll that
/// needs it, and copied into the others. A woken poll then costs a look-up, a copy, its
/// cursor and the send: the hub answers 1,000 polls woken by one group message in about
/// 3 ms when it has a core to itself (BENCHMARKS.md, "Event feed").
final class CommitAnswers: Sendable {
    let update: FeedUpdate
    private let encoded = Mutex<[FeedUpdate.Match: [UInt8]]>([:])

    init(_ update: FeedUpdate) { self.update = update }

    /// The answer to a poll after `cursor` with at most `limit` events, and how many it
    /// holds; nil when the poll must read its feed instead (the update has an event for it
    /// that only the feed can tell, or none at all).
    func answer(after cursor: FeedCursor, limit: Int) -> (body: Data, events: Int)? {
        guard let matches = update.matches(for: cursor.userID, after: cursor.position, limit: limit),
            let last = matches.last
        else { return nil }
        var events: [[UInt8]] = []
        events.reserveCapacity(matches.count)
        for match in matches {
            guard let bytes = bytes(of: match) else { return nil }
            events.append(bytes)
        }
        var next = cursor
        next.position = update.entries[last.entry].position
        return (WireWriter.answer(cursor: next.text, events: events), matches.count)
    }

    private func bytes(of match: FeedUpdate.Match) -> [UInt8]? {
        if let known = encoded.withLock({ $0[match] }) { return known }
        guard let event = update.event(of: match) else { return nil }
        var writer = WireWriter(capacity: 320 + (event.message?.text.utf8.count ?? 0))
        writer.write(event)
        let bytes = writer.bytes
        encoded.withLock { $0[match] = bytes }
        return bytes
    }
}
