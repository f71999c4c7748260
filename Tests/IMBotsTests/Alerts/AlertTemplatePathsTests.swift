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

    /// A node's named fields, a list's item's for a list.
    static func children(_ shape: TemplateShape) -> [(String, TemplateShape)] {
        if let item = shape.item { return children(item) }
        return shape.fields.map { ($0.name, $0.shape) }
    }

    static func paths(_ shape: TemplateShape) -> Set<String> {
        paths(shape, children)
    }

    /// The paths of a shape that hold labels (data, not fields: a node of any names).
    static func labelPaths(_ shape: TemplateShape, prefix: String = "") -> Set<String> {
        if shape.anyName != nil { return [prefix] }
        return children(shape).reduce(into: Set<String>()) { all, child in
            all.formUnion(labelPaths(child.1, prefix: prefix.isEmpty ? child.0 : prefix + "." + child.0))
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
        let title = try #require(AlertTemplatePaths.title().field("incident"))
        #expect(Self.withoutLabelMembers(Self.paths(incident.templateValue), shape: title) == Self.paths(title))
        let instance = try #require(incident.instances.first)
        let line = try #require(AlertTemplatePaths.line().field("alert"))
        #expect(Self.withoutLabelMembers(Self.paths(instance.templateValue), shape: line) == Self.paths(line))
    }

    @Test("a webhook rule's templates are checked to the leaf against its route's payload, with every rule's")
    func walk() throws {
        func unknown(_ template: String, format: String = "alertmanager") -> [String] {
            let text = """
                bot: b
                account: { username: b, password: secret-password }
                webhooks: [ { path: /hooks/in, format: \(format), secret: s } ]
                rules:
                  - name: r
                    when: { webhook: /hooks/in }
                    do: [ { send: { to: "group:ops", text: "\(template)" } } ]
                """
            do {
                _ = try BotLoader.load(text: text, file: "b.yaml", directory: "/tmp", environment: [:])
                return []
            } catch {
                return error.errors.filter { $0.code == .unknownVariable }.map(\.message)
            }
        }
        #expect(unknown("{{payload.commonLabels.anything}} {{payload.alerts.length}} {{payload.alerts.1.status}}") == [])
        #expect(unknown("{{#payload.alerts}}{{labels.instance}} {{status}}{{/payload.alerts}}") == [])
        // Inside a section, names are looked up in one alert first, then outwards.
        #expect(unknown("{{#payload.alerts}}{{#labels}}{{severity}}{{/labels}} {{payload.status}} "
                        + "{{now.hour}}{{/payload.alerts}}") == [])
        #expect(unknown("{{#payload.items}}{{anything}}{{/payload.items}}", format: "json") == [])
        let inside = unknown("{{#payload.alerts}}{{labls.instance}} {{statsu}}{{/payload.alerts}}")
        #expect(inside.count == 2, "\(inside)")
        #expect(inside.first?.hasPrefix("unknown template variable 'labls.instance' inside {{#payload.alerts}} "
                                        + "(did you mean 'labels'?)") == true, "\(inside)")
        #expect(inside.last?.hasPrefix("unknown template variable 'statsu' inside {{#payload.alerts}} "
                                       + "(did you mean 'status'?)") == true, "\(inside)")
        // Below a section whose own name is wrong, only that name is reported.
        #expect(unknown("{{#payload.alert}}{{whatever}}{{/payload.alert}}").count == 1)
        #expect(unknown("{{payload.title}} {{payload.alerts.1.values.A}}", format: "grafana") == [])
        #expect(unknown("{{payload.anything.goes}}", format: "json") == [])
        let found = unknown("{{payload.groupKey.x}} {{sender.nickname}} {{payload.alerts.0.status}} {{payload.title}}")
        #expect(found.count == 4, "\(found)")
        #expect(found.contains("unknown template variable 'payload.groupKey.x': 'payload.groupKey' is text, which has no fields"),
                "\(found)")
        #expect(found.contains { $0.hasPrefix("'{{sender.nickname}}' is always empty in rule 'r': 'sender' is set for "
                                           + "every feed event, and the rule takes webhooks") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("'{{payload.alerts.0.status}}' is always empty: positions in a list count from 1") })
        #expect(found.contains { $0.hasPrefix("unknown template variable 'payload.title'") }, "a grafana field")
    }
}
