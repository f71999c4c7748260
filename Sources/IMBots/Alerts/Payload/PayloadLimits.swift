/// Bounds on one webhook notification, checked while it is decoded.
///
/// The listener's body limit bounds the bytes; these bound what the bridge keeps per
/// notification (an incident remembers every instance), so one misconfigured
/// `group_by: ['...']` cannot fill the journal.
public struct PayloadLimits: Sendable, Hashable {
    /// Alerts in one notification at most. Alertmanager's `max_alerts` on the receiver
    /// truncates on the sending side (and reports it in `truncatedAlerts`).
    public var maxAlerts: Int
    /// Labels (and, separately, annotations) on one alert or group at most.
    public var maxLabels: Int
    /// Bytes of one label or annotation, name and value together, at most.
    public var maxLabelBytes: Int
    /// Nesting depth of a `json` body at most.
    public var maxDepth: Int

    /// The defaults: 1,000 alerts, 128 labels of up to 16 KiB each, 32 levels of nesting.
    public init(maxAlerts: Int = 1000, maxLabels: Int = 128, maxLabelBytes: Int = 16 * 1024,
                maxDepth: Int = 32) {
        self.maxAlerts = maxAlerts
        self.maxLabels = maxLabels
        self.maxLabelBytes = maxLabelBytes
        self.maxDepth = maxDepth
    }
}
