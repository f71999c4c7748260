import Foundation
import IMBots
import Testing

/// The real webhook bodies in `<repo>/../shared/testdata`, and notifications made up
/// for the incident tests.
enum AlertFixtures {
    /// `<repo>/../shared/testdata`, found from this file's path.
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Alerts
        .deletingLastPathComponent()  // IMBotsTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // repository
        .deletingLastPathComponent()
        .appendingPathComponent("shared/testdata", isDirectory: true)

    /// The bytes of `alertmanager/firing.json` and the like.
    static func body(_ relativePath: String) throws -> Data {
        try Data(contentsOf: root.appendingPathComponent(relativePath))
    }

    /// A decoded shared body.
    static func notification(_ relativePath: String, format: WebhookFormat = .alertmanager) throws -> AlertNotification {
        let payload = try format.decode(body(relativePath))
        return try #require(payload.notification)
    }

    /// An alert of the group `DiskFull` on `instance`.
    static func alert(_ instance: String, _ status: AlertStatus = .firing,
                      summary: String? = nil) -> AlertInstance {
        AlertInstance(status: status,
                      labels: ["alertname": "DiskFull", "instance": instance, "severity": "critical"],
                      annotations: ["summary": summary ?? "disk full on \(instance)"],
                      fingerprint: "fp-\(instance)")
    }

    /// A notification of the `DiskFull` group holding `alerts`.
    static func group(_ alerts: [AlertInstance], key: String = "{}:{alertname=\"DiskFull\"}") -> AlertNotification {
        AlertNotification(status: alerts.contains { $0.status == .firing } ? .firing : .resolved,
                          receiver: "chat", groupKey: key, groupLabels: ["alertname": "DiskFull"],
                          commonLabels: ["alertname": "DiskFull", "severity": "critical"],
                          alerts: alerts)
    }

    /// JSON text as bytes.
    static func json(_ text: String) -> Data { Data(text.utf8) }
}
