import Foundation

/// The TCP connections a process holds, read from /proc: which of its descriptors are
/// sockets, and where each socket is connected (`/proc/PID/net/tcp`).
///
/// For attacks whose clients cannot see the server let them go (a reader that never
/// reads does not see the close behind the unsent answer): the server's own descriptors say.
enum SocketTable {
    /// How many connections process `pid` holds to any of `peers` (IPv4 addresses).
    static func connections(of pid: pid_t, to peers: [String]) -> Int {
        let fdFolder = "/proc/\(pid)/fd"
        guard let descriptors = try? FileManager.default.contentsOfDirectory(atPath: fdFolder),
              let table = procText("/proc/\(pid)/net/tcp")
        else { return 0 }
        // The process's sockets, by inode: `socket:[12345]`.
        let inodes = Set(descriptors.compactMap { name -> Substring? in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(fdFolder)/\(name)"),
                  target.hasPrefix("socket:[") else { return nil }
            return target.dropFirst("socket:[".count).dropLast()
        })
        let wanted = Set(peers.map(hex))
        // Each line: `sl local_address rem_address st ... uid timeout inode ...`, the
        // remote address as the IPv4 address's bytes in memory order, in hex, then `:port`.
        return table.split(separator: "\n").dropFirst().filter { line in
            let fields = line.split(separator: " ")
            guard fields.count > 9, let remote = fields[2].split(separator: ":").first else { return false }
            return wanted.contains(String(remote)) && inodes.contains(fields[9])
        }.count
    }

    /// 127.0.0.40 as /proc writes it on a little-endian machine: `2800007F`.
    private static func hex(_ address: String) -> String {
        address.split(separator: ".").reversed().map { String(format: "%02X", Int($0) ?? 0) }.joined()
    }
}

/// A file of /proc as text, read to its end: /proc files report a size of 0, and
/// `String(contentsOfFile:)` then stops after the first page.
func procText(_ path: String) -> String? {
    guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    do {
        return String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
    } catch {
        return nil
    }
}
