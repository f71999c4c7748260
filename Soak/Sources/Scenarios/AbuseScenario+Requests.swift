import Foundation
import IMProtocol

/// The attacks made of single requests: oversized ones and password guessing.
extension AbuseScenario {
    /// Headers, paths and bodies past their limits, each on its own connection.
    func oversized(_ context: Context, into report: inout Report) async throws {
        let token = context.probe.client.token ?? ""
        let auth = "Authorization: Bearer \(token)"
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        let cases: [(name: String, request: [UInt8], statuses: Set<Int>, envelope: Bool)] = [
            ("a 64 KiB header", RawSocket.request("GET", "/v1/me", headers: [auth, "X-Big: " + String(repeating: "a", count: 65536)]), [431], false),
            ("a 16 KiB path", RawSocket.request("GET", "/v1/users/" + String(repeating: "a", count: 16384), headers: [auth]), [414, 431], false),
            ("a body over 1 MiB", RawSocket.request("PATCH", "/v1/me", headers: [auth], body: Array(repeating: 0x20, count: (1 << 20) + 1)), [413], true),
            ("Content-Length of 2 GiB", Array("PATCH /v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\n\(auth)\r\nContent-Length: 2147483648\r\n\r\n".utf8), [413], true),
            ("a chunked body over 1 MiB", Self.chunked("PATCH", "/v1/me", auth: auth, bytes: 2 << 20), [413], true),
            ("an avatar over 2 MiB", RawSocket.request("PUT", "/v1/me/avatar", headers: [auth], body: png + Array(repeating: 0, count: 3 << 20)), [413], true),
        ]
        for item in cases {
            let answer = await Threads.run { RawSocket.exchange(from: "127.0.0.100", port: context.port, item.request, patience: 15) }
            let summary = answer?.summary ?? "no answer"
            report.figure("oversized: \(item.name)", summary)
            report.check(answer.map { item.statuses.contains($0.status) } ?? false,
                         "oversized: \(item.name) answered \(summary), expected \(item.statuses.sorted())")
            if let answer, !answer.isEnvelope {
                if item.envelope {
                    report.fail("oversized: \(item.name) answered \(answer.status) without the error envelope")
                } else {
                    report.finding("oversized: \(item.name) is answered \(answer.status) by the HTTP library itself, an HTML page rather than the error envelope")
                }
            }
        }
    }

    static func chunked(_ method: String, _ path: String, auth: String, bytes: Int) -> [UInt8] {
        var request = Array("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(auth)\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        let chunk = 64 << 10
        for _ in 0..<(bytes / chunk) {
            request += Array(String(chunk, radix: 16).utf8) + [13, 10] + Array(repeating: 0x20, count: chunk) + [13, 10]
        }
        return request + Array("0\r\n\r\n".utf8)
    }

    /// Password guessing from many addresses at once against one account, then many
    /// accounts from one address. The account locks after 5 failures (even the right
    /// password then gets 429), and an address is refused after 50 failures.
    func passwordGuessing(_ context: Context, into report: inout Report) async throws {
        let victim = try await context.server.client.register("soak-victim", password: "the right password")
        let attackers = Loopback.clientAddresses(20, from: 120)
        let port = context.port
        let (answers, measured) = try await context.probe.measure {
            await Threads.map(attackers.count, width: attackers.count) { index in
                (0..<10).map { attempt in
                    let body = Array(#"{"username":"soak-victim","password":"guess \#(index)-\#(attempt)"}"#.utf8)
                    return RawSocket.exchange(from: attackers[index], port: port, RawSocket.request("POST", "/v1/login", body: body))?.status ?? 0
                }
            }.flatMap { $0 }
        }
        let wrong = answers.filter { $0 == 401 }.count
        let locked = answers.filter { $0 == 429 }.count
        report.figure("password guessing", "\(answers.count) guesses from \(attackers.count) addresses at once: \(wrong) answered 401, \(locked) answered 429, \(answers.count - wrong - locked) other")
        report.check(wrong <= 5, "password guessing: \(wrong) wrong passwords were checked; the lock-out allows 5",
                     knownIssue: .parallelGuessesPassTheLockOut)
        report.check(wrong + locked == answers.count, "password guessing: \(answers.count - wrong - locked) guesses got neither 401 nor 429")
        let right = await Threads.run {
            RawSocket.exchange(from: "127.0.0.150", port: port,
                               RawSocket.request("POST", "/v1/login", body: Array(#"{"username":"soak-victim","password":"the right password"}"#.utf8)))
        }
        report.check(right?.status == 429 && right?.header("Retry-After") != nil,
                     "password guessing: the right password during the lock-out answered \(right?.summary ?? "nothing"), not 429 with Retry-After")
        let stillIn = try await victim.send("GET", "/v1/me")
        report.check(stillIn.status == 200, "password guessing: the victim's own login answered \(stillIn.summary)")
        checkLatency("password guessing", measured, context, into: &report)

        // One address guessing many names: refused after 50 failures.
        let spray = await Threads.run {
            (0..<60).map { index in
                RawSocket.exchange(from: "127.0.0.151", port: port, RawSocket.request(
                    "POST", "/v1/login", body: Array(#"{"username":"nobody-\#(index)","password":"a wrong password"}"#.utf8)))?.status ?? 0
            }
        }
        let refusedAt = spray.firstIndex(of: 429)
        report.figure("password spraying", "60 names from one address: \(spray.filter { $0 == 401 }.count) answered 401, then 429 from guess \(refusedAt.map { String($0 + 1) } ?? "never")")
        report.check(spray.prefix(50).allSatisfy { $0 == 401 } && spray.dropFirst(50).allSatisfy { $0 == 429 },
                     "password spraying: the address limit (50 failures) did not hold: \(spray)")
    }
}
