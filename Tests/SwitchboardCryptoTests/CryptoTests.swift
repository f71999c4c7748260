import Testing
import SwitchboardCrypto

@Suite struct DigestTests {
    @Test func sha256MatchesTheFIPSVectorForABC() {
        #expect(Digest.hex(Digest.sha256(Array("abc".utf8)))
            == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func hmacMatchesRFC4231TestCase2() {
        let mac = Digest.hmacSHA256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        #expect(Digest.hex(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func hexRoundTripsAndRejectsMalformedInput() {
        let bytes: [UInt8] = [0, 1, 0xab, 0xff]
        #expect(Digest.bytes(hex: Digest.hex(bytes)) == bytes)
        #expect(Digest.bytes(hex: "ABff") == [0xab, 0xff])
        #expect(Digest.bytes(hex: "abc") == nil)
        #expect(Digest.bytes(hex: "zz") == nil)
    }

    @Test func constantTimeEqualComparesContent() {
        #expect(Digest.constantTimeEqual([1, 2, 3], [1, 2, 3]))
        #expect(!Digest.constantTimeEqual([1, 2, 3], [1, 2, 4]))
        #expect(!Digest.constantTimeEqual([1, 2], [1, 2, 3]))
    }
}

@Suite struct SecureRandomTests {
    @Test func tokensCarry256BitsAndDiffer() {
        let first = SecureRandom.token()
        let second = SecureRandom.token()
        #expect(first.count == 43)  // 32 bytes in unpadded base64url
        #expect(first != second)
        #expect(first.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
    }
}

@Suite struct PasswordHasherTests {
    let cheap = PasswordHasher(memoryKiB: 1024, iterations: 1, parallelism: 1)

    @Test func hashVerifiesOnlyTheRightPassword() throws {
        let encoded = try cheap.hash("correct horse")
        #expect(encoded.hasPrefix("$argon2id$v=19$m=1024,t=1,p=1$"))
        #expect(PasswordHasher.verify("correct horse", against: encoded))
        #expect(!PasswordHasher.verify("correct hors", against: encoded))
        #expect(!PasswordHasher.verify("correct horse", against: "plain text"))
    }

    @Test func sameSaltNeverRepeats() throws {
        #expect(try cheap.hash("pw") != cheap.hash("pw"))
    }

    @Test func needsRehashWhenTheCostChanged() throws {
        let encoded = try cheap.hash("pw")
        #expect(!cheap.needsRehash(encoded))
        #expect(PasswordHasher.standard.needsRehash(encoded))
    }

    @Test func shippedCostIsAtLeastOWASPMinimum() {
        #expect(PasswordHasher.standard.memoryKiB >= 19 * 1024)
        #expect(PasswordHasher.standard.iterations >= 2)
    }
}
