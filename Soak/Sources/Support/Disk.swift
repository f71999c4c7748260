import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A small ext4 file system in an image file, mounted through a loop device, that a test
/// fills up or turns read-only under a running server.
///
/// ext4 rather than tmpfs: a tmpfs cannot be remounted read-only while a file on it is
/// open for writing (the database is), but ext4's `abort` mount option turns a mounted
/// file system read-only at once, as the kernel does after a disk error, and writes then
/// fail with EROFS.
struct LoopDisk: Sendable {
    let image: String
    let mountPoint: String

    /// Makes and mounts a file system of `mebibytes`, with no blocks reserved for root (the
    /// server runs as root here, and would otherwise write into the reserve).
    static func make(in work: String, mebibytes: Int) async throws -> LoopDisk {
        for program in ["/usr/sbin/mkfs.ext4", "/usr/bin/mount", "/usr/bin/umount", "/usr/sbin/e2fsck"] {
            guard FileManager.default.isExecutableFile(atPath: program) else {
                throw SoakFailure("\(program) is missing (make soak-deps installs e2fsprogs and mount)")
            }
        }
        guard getuid() == 0 else { throw SoakFailure("the storage scenario mounts a file system: run it as root") }
        let disk = LoopDisk(image: work + "/disk.img", mountPoint: work + "/disk")
        try FileManager.default.createDirectory(atPath: disk.mountPoint, withIntermediateDirectories: true)
        try await command("/usr/bin/truncate", ["-s", "\(mebibytes)M", disk.image])
        try await command("/usr/sbin/mkfs.ext4", ["-q", "-F", "-m", "0", disk.image])
        try await disk.mount()
        return disk
    }

    func mount() async throws {
        try await command("/usr/bin/mount", ["-o", "loop", image, mountPoint])
    }

    func unmount() async throws {
        try await command("/usr/bin/umount", [mountPoint])
    }

    /// What a failing disk does: the file system becomes read-only under its open files.
    func abort() async throws {
        try await command("/usr/bin/mount", ["-o", "remount,abort", mountPoint])
    }

    /// Replays the journal and repairs what the abort left (exit 1 and 2 mean "fixed").
    func repair() async throws -> String {
        try await command("/usr/sbin/e2fsck", ["-f", "-y", image], accepting: [0, 1, 2])
    }

    /// Writes a file until the file system is full; its path.
    func fill() throws -> String {
        let path = mountPoint + "/filler"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw SoakFailure("cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        // Big writes first, then ever smaller ones for the last partial blocks.
        for size in [1 << 20, 64 << 10, 4096, 512] {
            let chunk = [UInt8](repeating: 0, count: size)
            while chunk.withUnsafeBytes({ write(fd, $0.baseAddress, size) }) == size {}
        }
        fsync(fd)
        return path
    }

    /// Free bytes on the file system.
    var freeBytes: Int {
        var info = statvfs()
        guard statvfs(mountPoint, &info) == 0 else { return -1 }
        return Int(info.f_bavail) * Int(info.f_frsize)
    }
}
