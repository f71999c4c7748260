extension JournalRecord {
    /// A batch made shorter before it is written, with the same effect when replayed:
    /// a message sent before its batch was written never needs to be written (its
    /// `handled` record loses it, its `done` record goes), cursors but the last go, and so
    /// do the `handled` records that only move the watermark (nothing taken over by a
    /// lane waits for them), but the last. A reply sent in a quarter of a second, the
    /// common case, then costs its event's position in the journal, not its text twice.
    ///
    /// - Parameter lanes: positions of events taken over by lanes (their `handled` records
    ///   are what ends them, so they stay).
    static func coalesce(_ batch: [JournalRecord], lanes: Set<Int64>) -> [JournalRecord] {
        guard batch.count > 1 else { return batch }
        var added: Set<String> = []
        var finished: Set<String> = []
        var taken = lanes
        for record in batch {
            switch record.change {
            case .handled(_, _, let messages), .queued(let messages):
                for message in messages { added.insert(message.clientMessageID) }
            case .done(let id) where added.contains(id):
                finished.insert(id)
            case .accepted(let event):
                taken.insert(event.position)
            default:
                break
            }
        }
        func onlyMarks(_ record: JournalRecord) -> Bool {
            guard case .handled(let position, let state, let messages) = record.change else { return false }
            return state.isEmpty && !taken.contains(position) && messages.allSatisfy { finished.contains($0.clientMessageID) }
        }
        let lastCursor = batch.lastIndex { if case .cursor = $0.change { return true } else { return false } }
        let lastMark = batch.lastIndex(where: onlyMarks)
        var result: [JournalRecord] = []
        result.reserveCapacity(batch.count)
        for (index, record) in batch.enumerated() {
            switch record.change {
            case .cursor where index != lastCursor:
                continue
            case .done(let id) where finished.contains(id):
                continue
            case .handled(let position, let state, let messages):
                if index != lastMark, onlyMarks(record) { continue }
                let kept = messages.filter { !finished.contains($0.clientMessageID) }
                result.append(JournalRecord(sequence: record.sequence,
                                            change: .handled(position: position, state: state, messages: kept)))
            case .queued(let messages):
                let kept = messages.filter { !finished.contains($0.clientMessageID) }
                if !kept.isEmpty { result.append(JournalRecord(sequence: record.sequence, change: .queued(kept))) }
            default:
                result.append(record)
            }
        }
        return result
    }
}
