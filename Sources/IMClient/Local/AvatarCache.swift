import Foundation

/// Downloaded avatars on disk, one file per image URL.
///
/// Uploaded avatars live at `/v1/media/<id>` and never change under one URL (a new
/// upload gets a new id), so an entry never needs revalidating; a user's new avatar is
/// a new URL and a new entry.
public struct AvatarCache: Sendable {
    /// The folder holding the cached images.
    public let directory: String

    /// A cache in `directory` (created on the first store).
    public init(directory: String) {
        self.directory = directory
    }

    /// The cached bytes for the absolute `url`, or nil.
    public func data(for url: String) -> Data? {
        guard let data = AtomicFile.read(path(for: url)), !data.isEmpty else { return nil }
        return data
    }

    /// Stores the bytes downloaded from the absolute `url`.
    public func store(_ data: Data, for url: String) throws(IMClientError) {
        try AtomicFile.write(data, to: path(for: url))
    }

    /// The file for `url`: a hash of it, so any URL makes a safe file name.
    func path(for url: String) -> String {
        // FNV-1a, 64 bit: stable across runs and platforms, unlike `Hasher`.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in url.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        let name = String(hash, radix: 16)
        return directory + "/" + String(repeating: "0", count: 16 - name.count) + name
    }
}
