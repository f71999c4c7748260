import Foundation

/// A `switchboard` child process (a server or a runner) for benchmarks, with a throwaway
/// folder, stopped and cleaned up by `stop()`.
public final class ChildProcess: @unchecked Sendable {
    // @unchecked: used by one benchmark task; Process is not Sendable.
    public let process: Process
    public let folder: String

    /// Starts `binary arguments...` with `config` written to `<folder>/config.yaml`.
    public init(binary: String, arguments: [String], config: String, folder: String) throws {
        self.folder = folder
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/config.yaml"
        try config.write(toFile: path, atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments + ["--config", path]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
    }

    /// Resident memory in KiB (VmRSS).
    public var rssKiB: Int { ProcessStats.rssKiB(pid: process.processIdentifier) }

    /// CPU seconds used so far (user + system).
    public var cpuSeconds: Double { ProcessStats.cpuSeconds(pid: process.processIdentifier) }

    /// Why the process is no longer running, or nil while it runs (for waits that should
    /// give up at once when a child could not start, e.g. its port was taken).
    public var exited: String? {
        process.isRunning ? nil : "exited with status \(process.terminationStatus)"
    }

    /// 127.0.0.1:`port` as a socket address.
    public static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    /// A loopback port no socket uses now, below the kernel's range for outgoing
    /// connections (32768 and up on Linux), so the benchmark's own thousands of
    /// connections cannot take it before the child binds it.
    public static func freePort() -> Int {
        while true {
            let port = Int.random(in: 10_000..<32_768)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { return port }
            defer { close(fd) }
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            var address = loopback(port: port)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            if bound == 0 { return port }
        }
    }

    public func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }
}

/// Memory and CPU of processes, from /proc.
public enum ProcessStats {
    public static func rssKiB(pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    }

    public static func cpuSeconds(pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command: state is field 3; utime and stime are fields 14 and 15.
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// This process's resident memory in KiB.
    public static var ownRSSKiB: Int { rssKiB(pid: getpid()) }

    public static var ownCPUSeconds: Double { cpuSeconds(pid: getpid()) }
}

/// Percentiles and formatting.
extension ProcessStats {
    /// CPU time of a process and of every process it started (a PostgreSQL server: the
    /// postmaster and its backends), in seconds.
    public static func treeCPUSeconds(root: Int32) -> Double {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        var total = cpuSeconds(pid: root)
        for entry in entries {
            guard let pid = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, Int32(fields[1]) == root { total += cpuSeconds(pid: pid) }
        }
        return total
    }
}

public enum Stats {
    public static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction))]
    }

    public static func ms(_ value: Double) -> String { String(format: "%.2f ms", value) }

    /// Milliseconds between two instants.
    public static func milliseconds(_ from: ContinuousClock.Instant, _ to: ContinuousClock.Instant) -> Double {
        let elapsed = from.duration(to: to)
        return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
    }
}

/// A one-line description of the machine, for reports.
public enum Machine {
    /// The 1, 5 and 15 minute load averages: the machine is shared, so every figure says
    /// how busy it was.
    public static func loadAverage() -> String {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3)
            .joined(separator: " ") ?? "?"
    }

    /// User and system CPU time of the children that have ended (e.g. wrk runs), in µs.
    public static func childrenCPUMicroseconds() -> Int {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
        return (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1_000_000 + usage.ru_utime.tv_usec
            + usage.ru_stime.tv_usec
    }

    /// CLOCK_MONOTONIC in seconds, the clock `perf record -k CLOCK_MONOTONIC` stamps with.
    public static func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    public static func describe() -> String {
        let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("model name") }?
            .split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "unknown CPU"
        let memory = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("MemTotal") }?
            .split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return "\(ProcessInfo.processInfo.activeProcessorCount) cores (\(cpu)), \(memory / 1024 / 1024) GiB RAM, Linux"
    }
}

/// A benchmark failure.
public struct BenchError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
