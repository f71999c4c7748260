// FeedBench: the event feed's aims, measured from a separate client process against a
// release `switchboard serve` child process (a fresh data folder per part):
//
// - throughput: `GET /healthz` (the HTTP ceiling), durable one-to-one sends and sends to
//   a 50-member group (64 wrk connections each, the ratio to /healthz in the same run),
//   then history pages, the conversation list and a feed read with a backlog;
// - latency: send→delivery to a parked poll at a steady rate, from each send's start;
// - fanout: one message to a group whose members all hold a parked poll, from the start
//   of the send's request until the last answer has arrived;
// - moderation (only when asked): a moderator bot (`switchboard run`) in a group whose
//   members all poll, messages at `--mod-rate` per second, one in ten spam: from a spam
//   send's start until each member has its deletion (and, for comparison, its delivery).
//
//   .build/release/FeedBench [--only throughput,latency,fanout,moderation] [--fanout 1000,10000]
//       [--members 1000] [--mod-rate 10]
//       [--rounds 5] [--rate 1000] [--seconds 10] [--durability full] [--binary PATH]
//
// Timed requests go through `RawClient` (plain sockets, one epoll loop) or wrk, not the
// project's own client. Prints a Markdown table for BENCHMARKS.md.
import BenchSupport
import Foundation

let arguments = BenchArguments(known: ["only", "fanout", "rounds", "rate", "seconds", "durability", "binary", "members",
                                       "mod-rate"])
let only = Set(arguments.string("only", "throughput,latency,fanout").split(separator: ",").map(String.init))
let sizes = arguments.string("fanout", "1000").split(separator: ",").compactMap { Int($0) }
let bench = FeedBench(
    binary: arguments.string("binary", ".build/release/switchboard"),
    durability: arguments.string("durability", "full"), seconds: arguments.int("seconds", 10),
    rounds: arguments.int("rounds", 5))
let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first ?? "?"
bench.report.append("Machine: \(Machine.describe()), shared with other work (load average \(load) at the start). Server: `\(arguments.string("binary", ".build/release/switchboard")) serve`, durability \(arguments.string("durability", "full")), rate limits off.")
bench.report.append("")
bench.report.append("| measurement | result |")
bench.report.append("|---|---|")
do {
    if only.contains("throughput") { try await bench.throughput() }
    if only.contains("latency") { try await bench.latency(rate: arguments.int("rate", 1000)) }
    if only.contains("fanout") { for size in sizes { try await bench.fanOut(members: size) } }
    if only.contains("moderation") {
        try await bench.moderation(members: arguments.int("members", 1000), rate: arguments.int("mod-rate", 10))
    }
} catch {
    FileHandle.standardError.write(Data("FeedBench failed: \(error)\n".utf8))
    exit(1)
}
print(bench.report.joined(separator: "\n"))
