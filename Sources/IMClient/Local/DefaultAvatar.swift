import Foundation

/// The picture shown for a user without an avatar: a grey silhouette, 32×32 PNG.
public enum DefaultAvatar {
    /// The PNG bytes.
    public static let png: Data = Data(base64Encoded: encoded) ?? Data()

    /// Kept as text so the package needs no resource bundle.
    private static let encoded =
        "iVBORw0KGgoAAAANSUhEUgAAACAAAAAgCAAAAABWESUoAAAAU0lEQVR42t3RQQqAMBBD0dz/CP9u3qVQ0FackEIRxNnmbZLREU4/"
        + "BPTzAJ5CRX4TqvJZfAzEFnmHvOT73wwtoBxCdT6ETH4JufwUiwCsWAPgxT5owhIf6EFsAkwAAAAASUVORK5CYII="
}
