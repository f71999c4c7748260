/// What changed in an incident, in the order its replies are written.
public enum IncidentChange: Sendable, Hashable {
    /// Alerts seen for the first time, firing.
    case newAlerts([String])
    /// Alerts that had resolved for good and fire again.
    case refired([String])
    /// Alerts whose held resolve was cancelled by firing again (shown as a flap count,
    /// never as a reply: damping flaps is the point).
    case flapped([String])
    /// Alerts whose resolve became final.
    case resolved([String])
    /// Alerts Alertmanager no longer holds, resolved without a notification (it sends none
    /// for silenced alerts): found by reconciling with its API.
    case gone([String], whileSilenced: Bool)
    /// Closed by hand (`/resolve`), by this user.
    case closedByHand(String)
}

extension Incident {
    /// Folds one notification of the group into the incident.
    ///
    /// Alertmanager lists every alert of the group in each notification, firing and
    /// recently resolved alike, so each alert's status here is its current one; alerts
    /// absent from a notification keep their state. A resolve is held for `hold` (the
    /// flap damper); a fire within the hold cancels it and counts a flap.
    /// - Returns: the changes, final resolves of held alerts whose time has come first.
    public mutating func fold(_ notification: AlertNotification, now: Int64, hold: Duration,
                              maxInstances: Int) -> [IncidentChange] {
        var changes = advance(now: now, hold: hold)
        updatedAt = now
        let details = notification.identityOnly != true
        if details {
            groupLabels = notification.groupLabels
            commonLabels = notification.commonLabels
            commonAnnotations = notification.commonAnnotations
            externalURL = notification.externalURL
            truncatedAlerts = notification.truncatedAlerts
        }
        if let user = notification.acknowledgedBy { _ = acknowledge(by: user, now: now) }
        var new: [String] = [], refired: [String] = [], flapped: [String] = [], resolved: [String] = []
        var dropped = 0
        for alert in notification.alerts {
            guard let index = index(of: alert.fingerprint) else {
                let state: InstanceState = alert.status == .firing ? .firing : .resolved(at: now)
                let instance = Instance(fingerprint: alert.fingerprint, labels: alert.labels,
                                        annotations: alert.annotations, state: state, flaps: 0)
                if !append(instance, limit: maxInstances) {
                    dropped += 1
                } else if alert.status == .firing {
                    new.append(alert.fingerprint)
                }
                continue
            }
            var change: IncidentChangeKind?
            update(at: index) { instance in
                if details {
                    instance.labels = alert.labels
                    instance.annotations = alert.annotations
                }
                switch (alert.status, instance.state) {
                case (.firing, .firing), (.resolved, .resolving), (.resolved, .resolved):
                    break
                case (.firing, .resolving):
                    instance.state = .firing
                    instance.flaps += 1
                    change = .flapped
                case (.firing, .resolved):
                    instance.state = .firing
                    change = .refired
                case (.resolved, .firing):
                    if hold > .zero {
                        instance.state = .resolving(since: now)
                    } else {
                        instance.state = .resolved(at: now)
                        change = .resolved
                    }
                }
            }
            switch change {
            case .flapped?: flapped.append(alert.fingerprint); flapCount += 1
            case .refired?: refired.append(alert.fingerprint)
            case .resolved?: resolved.append(alert.fingerprint)
            case nil: break
            }
        }
        droppedInstances = dropped
        if !new.isEmpty { changes.append(.newAlerts(new)) }
        if !refired.isEmpty { changes.append(.refired(refired)) }
        if !flapped.isEmpty { changes.append(.flapped(flapped)) }
        if !resolved.isEmpty { changes.append(.resolved(resolved)) }
        return changes
    }

    /// Makes final every held resolve whose hold has passed at `now`.
    public mutating func advance(now: Int64, hold: Duration) -> [IncidentChange] {
        var resolved: [String] = []
        for index in instances.indices {
            guard case .resolving(let since) = instances[index].state, since + hold.milliseconds <= now else { continue }
            update(at: index) { $0.state = .resolved(at: now) }
            resolved.append(instances[index].fingerprint)
        }
        if !resolved.isEmpty { updatedAt = now }
        return resolved.isEmpty ? [] : [.resolved(resolved)]
    }

    /// Marks the incident acknowledged; false when `user` had already acknowledged it.
    public mutating func acknowledge(by user: String, now: Int64) -> Bool {
        guard acknowledgedBy != user else { return false }
        acknowledgedBy = user
        acknowledgedAt = now
        updatedAt = now
        return true
    }
}

private enum IncidentChangeKind {
    case flapped, refired, resolved
}
