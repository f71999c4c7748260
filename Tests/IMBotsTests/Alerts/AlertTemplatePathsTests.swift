import Foundation
@testable import IMBots
import Templates
import Testing

/// The description `check` uses of what alert templates read is the shape of the values
/// the bridge renders them with: no field a template could read is refused, and no field
/// `check` lets through is missing.
@Suite("Alert template paths")
struct AlertTemplatePathsTests {
    /// The dotted paths of every object member under a node, list elements merged:
    /// `children` gives a node's named children (an element's, for a list).
    static func paths<Node>(_ node: Node, prefix: String = "", _ children: (Node) -> [(String, Node)]) -> Set<String> {
        children(node).reduce(into: Set<String>()) { all, child in
            let path = prefix.isEmpty ? child.0 : prefix + "." + child.0
            all.insert(path)
            all.formUnion(paths(child.1, prefix: path, children))
        }
    }

    static func paths(_ value: TemplateValue) -> Set<String> {
        func children(_ value: TemplateValue) -> [(String, TemplateValue)] {
            switch value {
            case .object(let members): members.map { ($0.key, $0.value) }
            case .array(let items): items.flatMap(children)
            default: []
            }
        }
        return paths(value, children)
    }

    static func paths(_ shape: TemplateShape) -> Set<String> {
        func children(_ shape: TemplateShape) -> [(String, TemplateShape)] {
            switch shape {
            case .object(let members): members.map { ($0.key, $0.value) }
            case .list(let element): children(element)
            case .leaf, .labels, .any: []
            }
        }
        return paths(shape, children)
    }

    /// The paths of a shape that hold labels (data, not fields).
    static func labelPaths(_ shape: TemplateShape, prefix: String = "") -> Set<String> {
        switch shape {
        case .object(let members):
            return members.reduce(into: Set<String>()) { all, member in
                let path = prefix.isEmpty ? member.key : prefix + "." + member.key
                all.formUnion(labelPaths(member.value, prefix: path))
            }
        case .list(let element): return labelPaths(element, prefix: prefix)
        case .labels: return [prefix]
        case .leaf, .any: return []
        }
    }

    /// `paths` without the members of label sets.
    static func withoutLabelMembers(_ paths: Set<String>, shape: TemplateShape) -> Set<String> {
        let labels = labelPaths(shape)
        return paths.filter { path in !labels.contains { path.hasPrefix($0 + ".") } }
    }

    @Test("Alertmanager and Grafana payloads: the shape holds every field their values have, and only those",
          arguments: [(WebhookFormat.alertmanager, "alertmanager/firing.json"), (.grafana, "grafana/firing.json")])
    func payloads(_ format: WebhookFormat, _ file: String) throws {
        var notification = try AlertFixtures.notification(file, format: format)
        notification.notificationReason = "test"
        // One of each status, so that `firing` and `resolved` both have an alert.
        if var resolved = notification.alerts.first {
            resolved.status = .resolved
            notification.alerts.append(resolved)
        }
        let value = WebhookPayload.alerts(notification, format: format).templateValue
        let shape = AlertTemplatePaths.payload(format)
        let rendered = Self.withoutLabelMembers(Self.paths(value), shape: shape)
        #expect(rendered == Self.paths(shape))
    }

    @Test("incidents and their alerts: the title's and the line's shapes are the rendered values'")
    func incidents() throws {
        var tracker = IncidentTracker()
        _ = tracker.receive(AlertFixtures.group([AlertFixtures.alert("db-7")]), now: 1)
        let incident = try #require(tracker.book.incidents.values.first)
        #expect(Self.withoutLabelMembers(Self.paths(incident.templateValue), shape: AlertTemplatePaths.incident)
                == Self.paths(AlertTemplatePaths.incident))
        let instance = try #require(incident.instances.first)
        #expect(Self.withoutLabelMembers(Self.paths(instance.templateValue), shape: AlertTemplatePaths.alert)
                == Self.paths(AlertTemplatePaths.alert))
    }

    @Test("a template is walked through Mustache's context stack to the leaf")
    func walk() throws {
        let roots = AlertTemplatePaths.webhookRule(.alertmanager)
        func unknown(_ source: String) throws -> [String] {
            try Template(source: source).unknownPaths(in: roots).map(\.reference.name)
        }
        #expect(try unknown("{{payload.commonLabels.anything}} {{payload.alerts.length}}") == [])
        #expect(try unknown("{{#payload.alerts}}{{labels.instance}} {{payload.status}} {{status}}{{/payload.alerts}}") == [])
        #expect(try unknown("{{#payload.firing}}{{annotations.summary}}{{/payload.firing}}{{^payload.firing}}none{{/payload.firing}}") == [])
        #expect(try unknown("{{payload.alerts.labels}} {{payload.groupKey.x}} {{sender.nickname}} {{payload.alerts.0.status}}")
                == ["payload.alerts.labels", "payload.groupKey.x", "sender.nickname", "payload.alerts.0.status"])
        #expect(try unknown("{{#payload.alerts}}{{fingerprnt}}{{/payload.alerts}} {{state.any.thing}} {{now.hour}}")
                == ["fingerprnt"])
    }
}
