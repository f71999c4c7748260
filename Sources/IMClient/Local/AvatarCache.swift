import Foundation
import IMProtocol
import SwitchboardCrypto

/// Downloaded avatars on disk, one file per image URL, bounded in count and bytes.
///
/// Uploaded avatars live at `/v1/media/<id>` and never change under one URL (a new
/// upload gets a new id), so an entry never needs revalidating; a user's new avatar is
/// a new URL and a new entry. Entries are named by the SHA-256 of their URL (no two URLs
/// share a file), hold only bytes that are a PNG, JPEG, GIF or WebP image of at most
/// `Limits.avatarBytes`, and past `maxEntries` or `maxBytes` the least recently used go.
public struct AvatarCache: Sendable {
    /// The folder holding the cached images.
    public let directory: String
    /// Images kept at most.
    public let maxEntries: Int
    /// Bytes kept at most, all images together.
    public let maxBytes: Int

    /// A cache in `directory` (created on the first store).
    public init(directory: String, maxEntries: Int = 500, maxBytes: Int = 64 << 20) {
        self.directory = directory
        self.maxEntries = max(maxEntries, 1)
        self.maxBytes = max(maxBytes, Limits.avatarBytes)
    }

    /// The cached image for the absolute `url`, or nil.
    public func data(for url: String) -> Data? {
        let path = path(for: url)
        guard let data = AtomicFile.read(path), ImageFormat.sniff(data) != nil else { return nil }
        // Marks it recently used: eviction goes by modification time.
        try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: path)
        return data
    }

    /// Stores the image downloaded from the absolute `url`; refuses bytes that are no
    /// accepted image or too large, then evicts what passes the bounds.
    public func store(_ data: Data, for url: String) throws(IMClientError) {
        guard ImageFormat.sniff(data) != nil else {
            throw IMClientError(.badResponse, "\(url) is not a PNG, JPEG, GIF or WebP image: not cached")
        }
        guard data.count <= Limits.avatarBytes else {
            throw IMClientError(.badResponse, "\(url) is \(data.count) bytes, more than an avatar may be: not cached")
        }
        try AtomicFile.write(data, to: path(for: url), mode: 0o600)
        evict()
    }

    /// The file for `url`: the SHA-256 of it, so any URL makes a safe file name.
    public func path(for url: String) -> String {
        directory + "/" + Digest.hex(Digest.sha256(Array(url.utf8)))
    }

    /// Removes the least recently used entries until both bounds hold.
    private func evict() {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: directory) else { return }
        var entries: [(path: String, size: Int, used: Date)] = names.compactMap { name in
            // Only the cache's own files (64 hex digits): temporary files are left alone.
            guard name.utf8.count == 64, name.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) })
            else { return nil }
            let path = directory + "/" + name
            guard let attributes = try? manager.attributesOfItem(atPath: path) else { return nil }
            let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
            return (path, size, attributes[.modificationDate] as? Date ?? .distantPast)
        }
        var total = entries.reduce(0) { $0 + $1.size }
        guard entries.count > maxEntries || total > maxBytes else { return }
        entries.sort { $0.used < $1.used }
        var index = 0
        while index < entries.count, entries.count - index > maxEntries || total > maxBytes {
            try? manager.removeItem(atPath: entries[index].path)
            total -= entries[index].size
            index += 1
        }
    }
}
