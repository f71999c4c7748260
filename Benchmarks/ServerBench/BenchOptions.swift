import BenchSupport
import Foundation

/// Command-line settings of the benchmark.
struct BenchOptions {
    var binary = ".build/release/switchboard"
    var seconds = 10
    var senders = 64
    var rate = 1000
    var fanout = 1000
    var parked = 10_000
    var durability = "full"
    /// `sqlite`, or `postgres` (a private durable cluster the benchmark starts).
    var store = "sqlite"
    /// Server nodes on the one PostgreSQL database.
    var nodes = 1
    /// Writer sessions of each node on PostgreSQL (`server.store_writers`).
    var writers = 1
    /// Scenarios to run (all when empty): healthz, sends, latency, fanout, parked.
    var only: Set<String> = []
    /// Print scenario timestamps (CLOCK_MONOTONIC) to standard error.
    var trace = false

    static func parse(_ argv: [String]) -> BenchOptions {
        var options = BenchOptions()
        var index = 1
        func next() -> String {
            index += 1
            return index < argv.count ? argv[index] : ""
        }
        while index < argv.count {
            switch argv[index] {
            case "--binary": options.binary = next()
            case "--seconds": options.seconds = Int(next()) ?? options.seconds
            case "--senders": options.senders = Int(next()) ?? options.senders
            case "--rate": options.rate = Int(next()) ?? options.rate
            case "--fanout": options.fanout = Int(next()) ?? options.fanout
            case "--parked": options.parked = Int(next()) ?? options.parked
            case "--durability": options.durability = next()
            case "--store": options.store = next()
            case "--nodes": options.nodes = Int(next()) ?? options.nodes
            case "--writers": options.writers = Int(next()) ?? options.writers
            case "--trace": options.trace = true
            case "--only": options.only = Set(next().split(separator: ",").map(String.init))
            case "--quick":
                options.seconds = 3
                options.fanout = 200
                options.parked = 1000
            default:
                FileHandle.standardError.write(Data("unknown option \(argv[index])\n".utf8))
                exit(2)
            }
            index += 1
        }
        return options
    }
}
