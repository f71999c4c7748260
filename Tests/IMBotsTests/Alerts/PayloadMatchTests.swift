import IMBots
import Testing

@Suite("match: over payload paths")
struct PayloadMatchTests {
    func payload() throws -> WebhookPayload {
        try WebhookFormat.alertmanager.decode(try AlertFixtures.body("alertmanager/firing.json"))
    }

    func match(_ clauses: [(String, PayloadCondition)]) throws -> PayloadMatch {
        PayloadMatch(try clauses.map { PayloadMatch.Clause(path: try PayloadPath($0.0), condition: $0.1) })
    }

    @Test("equality, regex, presence and list membership on the typed payload")
    func conditions() throws {
        let payload = try payload()
        let cases: [([(String, PayloadCondition)], Bool)] = [
            ([("status", .equals("firing"))], true),
            ([("status", .equals("resolved"))], false),
            ([("commonLabels.severity", .equals("critical")), ("status", .equals("firing"))], true),
            ([("commonLabels.severity", .equals("critical")), ("status", .equals("resolved"))], false),
            ([("truncatedAlerts", .equals("0"))], true),
            ([("alerts.labels.instance", .equals("db-9"))], true),
            ([("alerts.#1.labels.instance", .equals("db-9"))], false),
            ([("alerts.labels.instance", .regex(try PayloadRegex("^db-[0-9]+$")))], true),
            ([("alerts.labels.instance", .regex(try PayloadRegex("^web-")))], false),
            ([("groupLabels.alertname", .regex(try PayloadRegex("diskfull", ignoreCase: true)))], true),
            ([("commonAnnotations.runbook_url", .present(true))], false),
            ([("commonAnnotations.runbook_url", .present(false))], true),
            ([("alerts.annotations.description", .present(true))], true),
            ([("commonLabels.severity", .oneOf(["critical", "page"]))], true),
            ([("commonLabels.severity", .oneOf(["warning"]))], false),
            ([("commonLabels.missing", .equals(""))], false),
            ([], true),
        ]
        for (clauses, expected) in cases {
            #expect(try match(clauses).matches(payload) == expected, "\(clauses.map(\.0))")
        }
    }

    @Test("explain names the first clause that fails")
    func firstFailure() throws {
        let match = try match([("status", .equals("firing")), ("commonLabels.severity", .equals("warning"))])
        #expect(match.firstFailure(in: try payload().templateValue)?.path.description == "commonLabels.severity")
    }

    @Test("bad paths and unsafe regexes are refused when the rule is built")
    func invalid() {
        for path in ["", "a..b", ".a", "a."] {
            #expect(throws: PayloadPath.Invalid.self) { try PayloadPath(path) }
        }
        #expect(throws: PayloadPath.Invalid.self) { try PayloadRegex("(") }
        #expect(throws: PayloadPath.Invalid.self) { try PayloadRegex("(a+)+$") }
    }

    @Test("json payloads match by the same paths, booleans and numbers by their JSON text")
    func jsonPayload() throws {
        let payload = try WebhookFormat.json.decode(AlertFixtures.json(#"{"ok":false,"n":2.5,"tags":["a","b"]}"#))
        #expect(try match([("ok", .equals("false")), ("n", .equals("2.5")), ("tags", .oneOf(["b"]))]).matches(payload))
        #expect(try !match([("tags", .equals("c"))]).matches(payload))
    }
}
