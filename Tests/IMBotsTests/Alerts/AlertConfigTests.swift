import IMBots
import Testing
import YAMLCoding

@Suite("Alert route configuration from YAML")
struct AlertConfigTests {
    func node(_ text: String, environment: [String: String] = [:]) throws -> YAMLNode {
        try YAMLLoader(interpolation: .environment(environment)).load(text, file: "bots/alerts.yaml")
    }

    func errors(_ body: () throws -> Void) -> [String] {
        do { try body(); return [] } catch let error as YAMLErrors {
            return error.errors.map(\.description)
        } catch {
            return ["\(error)"]
        }
    }

    @Test("match: values, lists and named tests build the conditions they say")
    func match() throws {
        let match = try PayloadMatch(yaml: node("""
            status: firing
            commonLabels.severity: [critical, page]
            alerts.labels.instance: { regex: '^DB-', ignore_case: true }
            commonAnnotations.runbook_url: { present: false }
            truncatedAlerts: 0
            """), file: "bots/alerts.yaml")
        #expect(match.clauses.count == 5)
        #expect(match.matches(try WebhookFormat.alertmanager.decode(try AlertFixtures.body("alertmanager/firing.json"))))
        #expect(!match.matches(try WebhookFormat.alertmanager.decode(try AlertFixtures.body("alertmanager/resolved.json"))))
    }

    @Test("match: every problem is reported with its position")
    func matchErrors() throws {
        let text = """
            a..b: x
            status: { regx: '^f' }
            severity: { regex: '(' }
            x: { equals: 1, in: [1] }
            y: { present: maybe }
            z: { equals: a, ignore_case: true }
            """
        let found = errors { _ = try PayloadMatch(yaml: try node(text), file: "bots/alerts.yaml") }
        #expect(found.count == 6, "\(found)")
        #expect(found[0].hasPrefix("bots/alerts.yaml:1:1: match path 'a..b' has an empty segment"))
        #expect(found[1].contains(":2:11: unknown key 'regx'") && found[1].contains("did you mean 'regex'"))
        #expect(found[2].contains(":3:20: invalid regex '('"))
        #expect(found[3].contains("exactly one of equals, regex, in, present"))
        #expect(found[4].contains("present must be true or false"))
        #expect(found[5].contains("ignore_case applies to regex only"))
    }

    @Test("dedupe: key and time, the alert default, and a json route that must say its key")
    func dedupe() throws {
        let custom = try DedupeKey(yaml: node(#"{ key: "{{payload.groupKey}}/{{payload.status}}", for: 30m }"#), file: "f", format: .alertmanager)
        #expect(custom.lifetime == .seconds(1800))
        #expect(custom.template.source == "{{payload.groupKey}}/{{payload.status}}")
        let defaulted = try DedupeKey(yaml: node("{ for: 2h }"), file: "f", format: .grafana)
        #expect(defaulted.template.source == DedupeKey.defaultAlertSource)
        #expect(errors { _ = try DedupeKey(yaml: try node("{ for: 1h }"), file: "f", format: .json) }.first?
            .contains("needs a key") == true)
        #expect(errors { _ = try DedupeKey(yaml: try node("{ key: '{{#a}}', for: soon }"), file: "f", format: .json) }.count == 2)
    }

    @Test("a webhooks entry: plain secrets take the format's scheme; explicit schemes; peers")
    func route() throws {
        let environment = ["ALERT_TOKEN": "t0ken", "HMAC": "k3y"]
        let am = try WebhookRoute.parse(yaml: node("""
            path: /hooks/alertmanager
            format: alertmanager
            secret: ${ALERT_TOKEN}
            alertmanager: [http://127.0.0.1:9093, http://127.0.0.1:9094]
            """, environment: environment), file: "f")
        #expect(am.route.auth == .bearer(token: "t0ken"))
        #expect(am.alertmanagers == ["http://127.0.0.1:9093", "http://127.0.0.1:9094"])
        let grafana = try WebhookRoute.parse(yaml: node("{ path: /hooks/grafana, format: grafana, secret: '${HMAC}' }",
                                                       environment: environment), file: "f")
        #expect(grafana.route.auth == .grafanaHMAC(GrafanaSignature(secret: "k3y")))
        let custom = try WebhookRoute.parse(yaml: node("""
            path: /g
            format: grafana
            secret: { grafana_hmac: { secret: k, header: X-Sig, timestamp_header: none, window: 1m } }
            """), file: "f")
        #expect(custom.route.auth == .grafanaHMAC(GrafanaSignature(secret: "k", signatureHeader: "X-Sig",
                                                                   timestampHeader: nil, window: .seconds(60))))
        let basic = try WebhookRoute.parse(yaml: node("{ path: /b, format: json, secret: { basic: { user: u, password: p } } }"), file: "f")
        #expect(basic.route.auth == .basic(username: "u", password: "p"))
    }

    @Test("a webhooks entry without a secret, or with bad values, is refused with every reason")
    func routeErrors() throws {
        #expect(errors { _ = try WebhookRoute.parse(yaml: try node("{ path: /a, format: alertmanager }"), file: "f") }
            .first?.contains("needs a secret") == true)
        let found = errors {
            _ = try WebhookRoute.parse(yaml: try node("""
                path: hooks
                format: alertmanger
                secret: { bearer: '' }
                alertmanager: [ftp://x]
                extra: 1
                """), file: "f")
        }
        #expect(found.count == 5, "\(found)")
        #expect(found.contains { $0.contains("unknown key 'extra'") })
        #expect(found.contains { $0.contains("must start with '/'") })
        #expect(found.contains { $0.contains("did you mean 'alertmanager'") })
        #expect(found.contains { $0.contains("secret.bearer is empty") })
        #expect(found.contains { $0.contains("ftp://x") })
        // A plain secret left empty is the runner's to generate, never "no authentication".
        let generated = try WebhookRoute.parse(yaml: try node("{ path: /a, format: alertmanager, secret: '' }"), file: "f")
        #expect(generated.generatesSecret)
    }
}
