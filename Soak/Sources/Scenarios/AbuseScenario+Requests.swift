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
    /// accounts from one address. One address is locked out of one account after 5
    /// failures (even the right password then gets 429); the account takes at most 10
    /// checks a minute (right or wrong) from addresses it does not trust and at most 100
    /// failures from all addresses, and its owner's recent addresses still get in; an
    /// address is refused after 30 checks a minute (right or wrong) or 50 failures.
    func passwordGuessing(_ context: Context, into report: inout Report) async throws {
        let password = "the right password"
        _ = try await context.server.client.register("soak-victim", password: password)
        // A login from the victim's own address, which the account then trusts.
        let victim = try await context.server.client.login("soak-victim", password: password)
        let attackers = Loopback.clientAddresses(20, from: 120)
        let port = context.port
        let login = { @Sendable (source: String, password: String) -> RawAnswer? in
            RawSocket.exchange(from: source, port: port, RawSocket.request(
                "POST", "/v1/login", body: Array(#"{"username":"soak-victim","password":"\#(password)"}"#.utf8)))
        }
        let (answers, measured) = try await context.probe.measure {
            await Threads.map(attackers.count, width: attackers.count) { index in
                (0..<10).map { attempt in login(attackers[index], "guess \(index)-\(attempt)") }
            }
        }
        let wrongByAddress = answers.map { $0.filter { $0?.status == 401 }.count }
        let wrong = wrongByAddress.reduce(0, +)
        let refused = answers.joined().filter { $0?.status == 429 && $0?.header("Retry-After") != nil }.count
        let guesses = answers.joined().count
        report.figure("password guessing", "\(guesses) guesses from \(attackers.count) addresses at once: \(wrong) answered 401 "
            + "(at most \(wrongByAddress.max() ?? 0) from one address), \(refused) answered 429, \(guesses - wrong - refused) other")
        report.check(wrongByAddress.allSatisfy { $0 <= 5 },
                     "password guessing: one address had \(wrongByAddress.max() ?? 0) wrong passwords checked; its lock-out allows 5")
        report.check(wrong <= 100, "password guessing: \(wrong) wrong passwords were checked; the account allows 100")
        report.check(wrong + refused == guesses, "password guessing: \(guesses - wrong - refused) guesses got neither 401 nor 429 with Retry-After")

        // The right password: refused from a locked-out address (the in-flight caps refuse
        // most parallel guesses before their password is checked, so one attacker goes on
        // alone until it is locked out), and from elsewhere once the account has had its
        // 100 failures; its owner's address still gets in.
        let (lockedAfter, right) = await Threads.run { () -> (Int, RawAnswer?) in
            var failures = wrongByAddress[0]
            for attempt in 0..<10 {
                let answer = login(attackers[0], "serial guess \(attempt)")
                guard answer?.status == 401 else { break }
                failures += 1
            }
            return (failures, login(attackers[0], password))
        }
        report.check(lockedAfter <= 5, "password guessing: one address had \(lockedAfter) failures checked against the account; its lock-out allows 5")
        report.check(right?.status == 429 && right?.header("Retry-After") != nil,
                     "password guessing: the right password from a locked-out address answered \(right?.summary ?? "nothing"), not 429 with Retry-After")
        // From a new address: refused while the account's budget of checks from addresses
        // it does not trust is spent (the guesses spent it), which comes back at 10 a minute.
        let stranger = await Threads.run { login("127.0.0.150", password) }
        report.check(stranger?.status == 200 || (stranger?.status == 429 && stranger?.header("Retry-After") != nil),
                     "password guessing: the right password from a new address after \(wrong) failures answered \(stranger?.summary ?? "nothing")")
        let owner = try await context.server.client.send("POST", "/v1/login", json: LoginRequest(username: "soak-victim", password: password))
        report.figure("password guessing: the right password", "from an address locked out after \(lockedAfter) failures \(right?.summary ?? "no answer"), "
            + "from a new address \(stranger?.summary ?? "no answer"), from the owner's address \(owner.summary)")
        report.check(owner.status == 200, "password guessing: the owner's own login from its usual address answered \(owner.summary)")
        let stillIn = try await victim.send("GET", "/v1/me")
        report.check(stillIn.status == 200, "password guessing: the victim's own login answered \(stillIn.summary)")
        checkLatency("password guessing", measured, context, into: &report)

        // One address guessing many names: refused once its 30 checks of the minute are
        // spent (before its 50 failures), a few more as the budget comes back.
        let spray = await Threads.run {
            (0..<60).map { index in
                RawSocket.exchange(from: "127.0.0.151", port: port, RawSocket.request(
                    "POST", "/v1/login", body: Array(#"{"username":"nobody-\#(index)","password":"a wrong password"}"#.utf8)))?.status ?? 0
            }
        }
        let refusedAt = spray.firstIndex(of: 429)
        report.figure("password spraying", "60 names from one address: \(spray.filter { $0 == 401 }.count) answered 401, then 429 from guess \(refusedAt.map { String($0 + 1) } ?? "never")")
        report.check(spray.prefix(30).allSatisfy { $0 == 401 } && spray.allSatisfy { $0 == 401 || $0 == 429 }
                        && spray.filter { $0 == 401 }.count < 50,
                     "password spraying: the address's budget (30 checks a minute) did not hold: \(spray)")
    }
}
