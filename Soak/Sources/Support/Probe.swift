import Foundation
import IMProtocol

/// A well-behaved client measuring how long the server takes to answer it while others
/// abuse it: a read (`GET /v1/me`) and a send (a note to itself) every `interval`.
struct Probe: Sendable {
    let client: APIClient
    var interval: Duration = .milliseconds(50)

    struct Measurements: Sendable {
        var reads = Latencies()
        var sends = Latencies()
    }

    /// Measures until `body` returns; `body`'s result and the measurements.
    func measure<T: Sendable>(during body: @Sendable () async throws -> T) async throws -> (T, Measurements) {
        let task = Task { await loop() }
        do {
            let result = try await body()
            task.cancel()
            return (result, await task.value)
        } catch {
            task.cancel()
            _ = await task.value
            throw error
        }
    }

    /// Measures for `duration`.
    func measure(for duration: Duration) async throws -> Measurements {
        try await measure { try await Task.sleep(for: duration) }.1
    }

    /// Why a request did not get `status`; nil when it did.
    private static func attempt(_ request: () async throws -> APIClient.Answer, expecting status: Int) async -> String? {
        do {
            let answer = try await request()
            return answer.status == status ? nil : answer.summary
        } catch {
            return "\(error)"
        }
    }

    private func loop() async -> Measurements {
        var measurements = Measurements()
        var count = 0
        while !Task.isCancelled {
            count += 1
            let start = ContinuousClock.now
            let read = await Self.attempt({ try await client.send("GET", "/v1/me", timeout: .seconds(10)) }, expecting: 200)
            // The measurement ending cancels the request in flight: not the server's doing.
            if Task.isCancelled { break }
            switch read {
            case nil: measurements.reads.add((ContinuousClock.now - start).seconds * 1000)
            case let reason?: measurements.reads.addError(reason)
            }
            // A send every fifth round stays within the person's send budget (10/s).
            if count % 5 == 0 {
                let sendStart = ContinuousClock.now
                let body = SendMessageRequest(text: "probe \(count)", clientMessageID: "probe-\(UUID().uuidString)")
                let outcome = await Self.attempt({
                    try await client.send("POST", "/v1/conversations/user:soak-probe/messages", json: body, timeout: .seconds(10))
                }, expecting: 201)
                if Task.isCancelled { break }
                switch outcome {
                case nil: measurements.sends.add((ContinuousClock.now - sendStart).seconds * 1000)
                case let reason?: measurements.sends.addError(reason)
                }
            }
            try? await Task.sleep(for: interval)
        }
        return measurements
    }
}
