import IMProtocol
import Testing

@Suite struct TimestampTests {
    /// 2026-11-29T16:16:50.123Z.
    static let sample: Int64 = 1_795_969_010_123

    @Test(arguments: [
        ("2026-11-29T16:16:50.123Z", sample),
        ("2026-11-29T17:16:50.123+01:00", sample),
        ("2026-11-29T11:46:50.123-04:30", sample),
        ("2026-11-29T16:16:50.123+00:00", sample),
        ("2026-11-29T16:16:50.123-00:00", sample),
        ("2026-11-29t16:16:50.123z", sample),
        ("2026-11-29 16:16:50.123Z", sample),
        ("2026-11-29T16:16:50Z", sample - 123),
        ("2026-11-29T16:16:50.1Z", sample - 23),
        ("2026-11-29T16:16:50.12Z", sample - 3),
        // Digits past milliseconds are dropped, not rounded.
        ("2026-11-29T16:16:50.123999Z", sample),
        ("1970-01-01T00:00:00Z", 0),
        ("1970-01-01T01:00:00+01:00", 0),
        ("1969-12-31T23:59:59.999Z", -1),
        ("2000-02-29T00:00:00Z", 951_782_400_000),
        ("2038-01-19T03:14:08Z", 2_147_483_648_000),
        ("0001-01-01T00:00:00Z", -62_135_596_800_000),
        ("9999-12-31T23:59:59.999Z", 253_402_300_799_999),
        // A leap second is read as the first second of the next minute.
        ("2016-12-31T23:59:60Z", 1_483_228_800_000),
    ])
    func parses(text: String, milliseconds: Int64) {
        #expect(Timestamp(rfc3339: text)?.milliseconds == milliseconds)
    }

    @Test(arguments: [
        "",
        "2026-11-29",
        "2026-11-29T16:16:50",
        "2026-11-29T16:16:50.123",
        "2026-11-29T16:16:50.Z",
        "2026-11-29T16:16:50,123Z",
        "2026-11-29T16:16Z",
        "2026-11-29T16:16:50+01",
        "2026-11-29T16:16:50+0100",
        "2026-11-29T16:16:50+1:00",
        "2026-11-29T16:16:50ZZ",
        "2026-11-29T16:16:50Z ",
        " 2026-11-29T16:16:50Z",
        "2026-11-29X16:16:50Z",
        "2026/11/29T16:16:50Z",
        "26-11-29T16:16:50Z",
        "2026-1-29T16:16:50Z",
        "20261-11-29T16:16:50Z",
        "2026-00-10T16:16:50Z",
        "2026-13-10T16:16:50Z",
        "2026-11-00T16:16:50Z",
        "2026-11-32T16:16:50Z",
        "2026-02-31T00:00:00Z",
        "2025-02-29T00:00:00Z",
        "1900-02-29T00:00:00Z",
        "2026-04-31T00:00:00Z",
        "2026-11-29T16:16:50+24:00",
        "2026-11-29T16:16:50+99:99",
        "2026-11-29T16:16:50-01:60",
        "2026-11-29T24:00:00Z",
        "2026-11-29T16:60:00Z",
        "2026-11-29T16:16:61Z",
        "2026-11-29T16:16:5aZ",
        "-026-11-29T16:16:50Z",
        "２０２６-11-29T16:16:50Z",
    ])
    func rejects(text: String) {
        #expect(Timestamp(rfc3339: text) == nil)
    }

    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"),
        (1, "1970-01-01T00:00:00.001Z"),
        (-1, "1969-12-31T23:59:59.999Z"),
        (-1000, "1969-12-31T23:59:59.000Z"),
        (-1001, "1969-12-31T23:59:58.999Z"),
        (sample, "2026-11-29T16:16:50.123Z"),
        (951_782_400_000, "2000-02-29T00:00:00.000Z"),
        (-62_135_596_800_000, "0001-01-01T00:00:00.000Z"),
        (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
    ])
    func formats(milliseconds: Int64, text: String) {
        let timestamp = Timestamp(milliseconds: milliseconds)
        #expect(timestamp.rfc3339 == text)
        #expect(timestamp.description == text)
        #expect(Timestamp(rfc3339: text) == timestamp)
    }

    @Test func offsetsAreNormalisedToUTC() {
        #expect(Timestamp(rfc3339: "2026-11-29T00:30:00+01:00")?.rfc3339 == "2026-11-28T23:30:00.000Z")
        #expect(Timestamp(rfc3339: "2026-12-31T23:30:00-01:00")?.rfc3339 == "2027-01-01T00:30:00.000Z")
    }

    @Test func addingSeconds() {
        let start = Timestamp(milliseconds: 1000)
        #expect(start.adding(seconds: 1.5).milliseconds == 2500)
        #expect(start.adding(seconds: -0.25).milliseconds == 750)
        #expect(start.adding(seconds: 0).milliseconds == 1000)
        #expect(start.adding(seconds: 86400).rfc3339 == "1970-01-02T00:00:01.000Z")
    }

    @Test func ordersByTime() {
        let times = [Timestamp(milliseconds: 5), Timestamp(milliseconds: -5), Timestamp(milliseconds: 0)]
        #expect(times.sorted().map(\.milliseconds) == [-5, 0, 5])
        #expect(Timestamp(milliseconds: 1) > Timestamp(milliseconds: 0))
    }

    @Test func nowIsCurrentAndRoundTrips() throws {
        let before = try #require(Timestamp(rfc3339: "2025-01-01T00:00:00Z"))
        let now = Timestamp.now()
        #expect(now > before)
        #expect(Timestamp(rfc3339: now.rfc3339) == now)
        #expect(Timestamp.now() >= now)
    }

    @Test func codesAsRFC3339String() throws {
        #expect(try JSON.encode([Timestamp(milliseconds: Self.sample)]) == #"["2026-11-29T16:16:50.123Z"]"#)
        #expect(try JSON.decodeValue(Timestamp.self, #""2026-11-29T17:16:50.123+01:00""#)
            == Timestamp(milliseconds: Self.sample))
    }

    @Test func decodingABadTimeExplains() {
        #expect(JSON.corruption(Timestamp.self, #""yesterday""#) == "not an RFC 3339 time: yesterday")
    }

    @Test func numbersAreNotTimes() {
        #expect(throws: DecodingError.self) { try JSON.decodeValue(Timestamp.self, "1795969010123") }
    }
}
