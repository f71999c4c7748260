/// An incident kept true by what Alertmanager holds, and by hand: alerts that resolved
/// while silenced (Alertmanager sends nothing for them), silences made from chat, and
/// `/resolve`.
extension Incident {
    /// Folds what Alertmanager holds now for the group: `present`, the fingerprints of the
    /// group's alerts it still has (on any peer), each with the ids of the silences muting
    /// it, and `silences`, their details.
    ///
    /// An alert shown firing that is gone resolved without a notification (Alertmanager
    /// sends none for a silenced alert): it is resolved now, without the flap hold (it
    /// ended a while ago). Only the alerts in `asked` are judged (those shown firing when
    /// Alertmanager was asked), so one that a notification added meanwhile is left alone.
    /// - Returns: the changes (``IncidentChange/gone(_:whileSilenced:)``), empty when
    ///   only the silences changed.
    public mutating func reconcile(present: [String: [String]], silences: [IncidentSilence], asked: Set<String>,
                                   now: Int64) -> [IncidentChange] {
        var gone: [String] = []
        var wasSilenced = false
        for index in instances.indices {
            let fingerprint = instances[index].fingerprint
            if let muting = present[fingerprint] {
                update(at: index) { $0.silencedBy = muting.isEmpty ? nil : muting.sorted() }
                continue
            }
            guard asked.contains(fingerprint), instances[index].showsFiring else { continue }
            wasSilenced = wasSilenced || instances[index].isSilenced || !silencesOf(instances[index]).isEmpty
            update(at: index) { instance in
                instance.state = .resolved(at: now)
                instance.silencedBy = nil
            }
            gone.append(fingerprint)
        }
        let muting = Set(instances.flatMap { $0.silencedBy ?? [] })
        let kept = silences.filter { muting.contains($0.id) }.sorted { ($0.endsAt, $0.id) < ($1.endsAt, $1.id) }
        self.silences = kept.isEmpty ? nil : kept
        guard !gone.isEmpty else { return [] }
        updatedAt = now
        if isClosed { closedNote = wasSilenced ? "resolved while silenced" : "no longer in Alertmanager" }
        return [.gone(gone, whileSilenced: wasSilenced)]
    }

    /// `/resolve`: closes the incident by hand, every alert resolved now; nil when it is
    /// closed already.
    public mutating func resolve(by user: String, now: Int64) -> [IncidentChange]? {
        guard !isClosed, !instances.isEmpty else { return nil }
        for index in instances.indices where instances[index].showsFiring {
            update(at: index) { $0.state = .resolved(at: now) }
        }
        closedNote = "closed by \(user)"
        silences = nil
        updatedAt = now
        return [.closedByHand(user)]
    }

    /// Notes a silence made from chat on the alerts `matchers` select; false when it
    /// selects none of them.
    public mutating func noteSilence(_ silence: IncidentSilence, matchers: [SilenceMatcher], now: Int64) -> Bool {
        var noted = false
        for index in instances.indices where instances[index].showsFiring
            && matchers.allSatisfy({ $0.matches(instances[index].labels) }) {
            update(at: index) { instance in
                instance.silencedBy = Array(Set((instance.silencedBy ?? []) + [silence.id])).sorted()
            }
            noted = true
        }
        guard noted else { return false }
        silences = ((silences ?? []).filter { $0.id != silence.id } + [silence]).sorted { $0.endsAt < $1.endsAt }
        updatedAt = now
        return true
    }

    /// The silences muting `instance`.
    func silencesOf(_ instance: Instance) -> [IncidentSilence] {
        let ids = Set(instance.silencedBy ?? [])
        return (silences ?? []).filter { ids.contains($0.id) }
    }

    /// The silences that mute an alert shown firing, soonest end first.
    public var activeSilences: [IncidentSilence] {
        let muting = Set(instances.filter(\.showsFiring).flatMap { $0.silencedBy ?? [] })
        return (silences ?? []).filter { muting.contains($0.id) }
    }

    /// When the soonest silence ends (its alerts may have resolved meanwhile); nil when
    /// none mutes an alert shown firing.
    public var nextSilenceEnd: Int64? { activeSilences.map(\.endsAt).min() }
}
