extension Digest {
    /// Whether a presented secret equals the expected one, in time that depends on
    /// neither their contents nor their lengths.
    ///
    /// Both sides are hashed first, so comparing a short guess with a long token takes as
    /// long as any other comparison and the token's length does not leak.
    public static func secretsEqual(_ presented: String, _ expected: String) -> Bool {
        constantTimeEqual(sha256(Array(presented.utf8)), sha256(Array(expected.utf8)))
    }
}
