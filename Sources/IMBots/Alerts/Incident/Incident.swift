import IMProtocol

/// One alert group's incident: the state its living message shows, folded from every
/// notification of the group.
///
/// `Codable` so the bot's journal keeps it (with the message id) across restarts. Time
/// is wall milliseconds passed in by the caller, from an injected clock.
public struct Incident: Sendable, Hashable, Codable {
    /// Where one alert of the group stands.
    public enum InstanceState: Sendable, Hashable, Codable {
        case firing
        /// Resolved at `since`, held by the flap damper until `since + hold`.
        case resolving(since: Int64)
        case resolved(at: Int64)
    }

    /// One alert of the group.
    public struct Instance: Sendable, Hashable, Codable {
        /// The sender's identity of the alert.
        public var fingerprint: String
        /// Its labels, as last sent.
        public var labels: [String: String]
        /// Its annotations, as last sent.
        public var annotations: [String: String]
        /// Firing, held resolve, or resolved.
        public var state: InstanceState
        /// Times it resolved and fired again within the hold.
        public var flaps: Int
        /// The silences muting it, as Alertmanager last said (or as `/confirm` made them);
        /// nil or empty: not silenced.
        public var silencedBy: [String]?

        /// Whether a silence mutes it.
        public var isSilenced: Bool { !(silencedBy ?? []).isEmpty }

        /// Whether the message shows it as firing (a held resolve still shows firing).
        public var showsFiring: Bool {
            if case .resolved = state { return false }
            return true
        }
    }

    /// The alert group this incident is about.
    public let groupKey: String
    /// When the incident opened: part of its message's idempotency key.
    public let openedAt: Int64
    /// When a notification or command last changed it.
    public var updatedAt: Int64
    /// The labels the route groups by.
    public var groupLabels: [String: String]
    /// The labels every alert of the group has.
    public var commonLabels: [String: String]
    /// The annotations every alert of the group has.
    public var commonAnnotations: [String: String]
    /// The sender's URL, for links.
    public var externalURL: String
    /// Alerts the sender left out of its latest notification.
    public var truncatedAlerts: Int
    /// Instances in the order they first appeared.
    public private(set) var instances: [Instance] = []
    /// The living message, once the runner has posted it.
    public var messageID: MessageID?
    /// Who sent `/ack`, if anyone.
    public var acknowledgedBy: String?
    /// When.
    public var acknowledgedAt: Int64?
    /// Resolves that fired again within the hold, over all instances.
    public var flapCount = 0
    /// The text the living message last showed, so an unchanged render edits nothing.
    public var renderedText: String?
    /// Alerts of the latest notification left out because the incident already held its
    /// maximum of instances.
    public var droppedInstances = 0
    /// The silences muting some of its alerts (who made them, until when).
    public var silences: [IncidentSilence]?
    /// How it closed when no resolved notification closed it: `resolved while silenced`,
    /// `closed by alice`.
    public var closedNote: String?

    /// Opens an incident for the group of `notification` (nothing folded yet).
    public init(opening notification: AlertNotification, now: Int64) {
        groupKey = notification.groupKey
        openedAt = now
        updatedAt = now
        groupLabels = notification.groupLabels
        commonLabels = notification.commonLabels
        commonAnnotations = notification.commonAnnotations
        externalURL = notification.externalURL
        truncatedAlerts = notification.truncatedAlerts
    }

    /// The idempotency key the runner posts the living message with, so a repeated post
    /// (after a crash between posting and recording the id) returns the same message.
    public var clientMessageID: String {
        "incident-\(AlertInstance.fingerprint(of: ["group": groupKey]))-\(openedAt)"
    }

    /// Alerts shown firing (held resolves included).
    public var firingCount: Int { instances.count { $0.showsFiring } }
    /// Alerts shown resolved.
    public var resolvedCount: Int { instances.count - firingCount }
    /// True once every instance is resolved for good (no resolve held).
    public var isClosed: Bool { !instances.isEmpty && firingCount == 0 }

    /// The earliest time a held resolve becomes final under `hold`; nil when none is held.
    public func nextDeadline(hold: Duration) -> Int64? {
        instances.compactMap { instance -> Int64? in
            if case .resolving(let since) = instance.state { return since + hold.milliseconds }
            return nil
        }.min()
    }

    /// Index of the instance with `fingerprint`.
    func index(of fingerprint: String) -> Int? {
        instances.firstIndex { $0.fingerprint == fingerprint }
    }

    mutating func append(_ instance: Instance, limit: Int) -> Bool {
        guard instances.count < limit else { return false }
        instances.append(instance)
        return true
    }

    mutating func update(at index: Int, _ change: (inout Instance) -> Void) {
        change(&instances[index])
    }
}

/// A silence muting alerts of an incident, as the living message shows it.
public struct IncidentSilence: Sendable, Hashable, Codable {
    /// Alertmanager's id of the silence.
    public var id: String
    /// Who made it.
    public var createdBy: String
    /// When it ends, wall milliseconds.
    public var endsAt: Int64

    public init(id: String, createdBy: String, endsAt: Int64) {
        self.id = id
        self.createdBy = createdBy
        self.endsAt = endsAt
    }
}

extension Duration {
    /// Whole milliseconds, for wall-clock arithmetic.
    var milliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
