// ServerBench: measures a release `switchboard serve` over loopback.
//
// Starts the server as a child process with a throwaway data folder, then runs, in order:
// the HTTP ceiling (GET /healthz, wrk), durable sends/s with 64 senders (wrk), send→delivery
// latency to a parked poll at a fixed rate, fan-out of one message to a 1,000-member group
// with 1,000 parked polls, and server memory with many parked polls. Prints a Markdown
// report for BENCHMARKS.md. With `--store postgres` the server runs on a private durable
// PostgreSQL cluster, and with `--nodes 2` as two nodes of one database: sends go through
// both, the latency's receiver polls the node the sends do not go to, and the fan-out's
// members are spread over both.
import BenchSupport
import Foundation

let options = BenchOptions.parse(CommandLine.arguments)
let bench = try ServerBench(options: options)
do {
    try await bench.runAll()
} catch {
    FileHandle.standardError.write(Data("ServerBench failed: \(error)\n".utf8))
    await bench.stopServer()
    exit(1)
}
await bench.stopServer()
