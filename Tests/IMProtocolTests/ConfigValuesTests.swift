import IMProtocol
import Testing

@Suite struct ConfigDurationTests {
    @Test(arguments: [
        ("500ms", 0.5),
        ("1ms", 0.001),
        ("30s", 30),
        ("10m", 600),
        ("24h", 86400),
        ("7d", 604_800),
        ("2w", 1_209_600),
        ("1.5h", 5400),
        ("0.5s", 0.5),
        ("45", 45),
        ("2.25", 2.25),
        ("0", 0),
        ("0s", 0),
        (" 30s ", 30),
        ("\t10m\n", 600),
    ])
    func parses(text: String, seconds: Double) throws {
        let duration = try #require(ConfigDuration(text))
        #expect(duration.seconds == seconds)
    }

    @Test(arguments: ["", " ", "s", "ms", "m", "abc", "-5s", "-1", "10 s", "10sec", "10mins", "5x", "1h30m", "inf", "infs", "nan", "nans", "1e999s",
                          "0x10s", "0x10", "1e3s", "1e19s", "99999999999999999999", "+5s", "1.2.3s", ".s", "3651000d"])
    func rejects(text: String) {
        #expect(ConfigDuration(text) == nil)
    }

    @Test(arguments: [
        (0.0, "0ms"),
        (0.25, "250ms"),
        (0.999, "999ms"),
        (0.0004, "0.4ms"),
        (1, "1s"),
        (1.5, "1.5s"),
        (30, "30s"),
        (59, "59s"),
        (60, "1m"),
        (90, "90s"),
        (600, "10m"),
        (3600, "1h"),
        (5400, "90m"),
        (86400, "1d"),
        (90000, "25h"),
        (604_800, "7d"),
    ])
    func describes(seconds: Double, text: String) {
        #expect(ConfigDuration(seconds: seconds).description == text)
    }

    @Test(arguments: ["250ms", "1s", "1.5s", "90s", "10m", "90m", "1h", "25h", "1d", "7d"])
    func descriptionRoundTrips(text: String) throws {
        let duration = try #require(ConfigDuration(text))
        #expect(duration.description == text)
        #expect(ConfigDuration(duration.description) == duration)
    }

    // Found by the cursor-address fuzz target (Fuzz/Corpus/cursor-address/duration-point-seven):
    // `.7` read as 0.7 s was written `700ms`, which read back as 0.7000000000000001 s.
    @Test(arguments: [".7", "0.7", "700ms", "0.4ms", "1.5ms", "0.001", "123.456"])
    func subSecondDurationsReadBackExactly(text: String) throws {
        let duration = try #require(ConfigDuration(text))
        #expect(ConfigDuration(duration.description) == duration)
    }

    @Test func weeksAreWrittenInDays() {
        #expect(ConfigDuration("2w")?.description == "14d")
    }

    @Test func decodesNumbersAndText() throws {
        #expect(try JSON.decode([ConfigDuration].self, #"[2.5, "500ms", "10m", 0]"#).map(\.seconds) == [2.5, 0.5, 600, 0])
    }

    @Test func encodesTheTextForm() throws {
        #expect(try JSON.encode([ConfigDuration(seconds: 600), ConfigDuration(seconds: 0.5)]) == #"["10m","500ms"]"#)
    }

    @Test func decodingABadDurationExplains() {
        #expect(JSON.corruption(ConfigDuration.self, #""soon""#)
            == "'soon' is not a duration (write e.g. 500ms, 30s, 10m, 24h or 7d; at most 100 years)")
        #expect(JSON.corruption(ConfigDuration.self, #""-5s""#)
            == "'-5s' is not a duration (write e.g. 500ms, 30s, 10m, 24h or 7d; at most 100 years)")
    }

    @Test func negativeNumbersAreNotDurations() {
        #expect(throws: DecodingError.self) { try JSON.decodeValue(ConfigDuration.self, "-5") }
    }
}

@Suite struct ListenAddressTests {
    @Test(arguments: [
        ("127.0.0.1:8080", "127.0.0.1", 8080),
        ("localhost:80", "localhost", 80),
        ("0.0.0.0:0", "0.0.0.0", 0),
        ("example.com:65535", "example.com", 65535),
        ("[::1]:8080", "::1", 8080),
        ("[::]:443", "::", 443),
        ("[fe80::1%eth0]:9000", "fe80::1%eth0", 9000),
        // Without brackets the last colon separates the port.
        ("::1:8080", "::1", 8080),
    ])
    func parses(text: String, host: String, port: Int) {
        #expect(ListenAddress(text) == ListenAddress(host: host, port: port))
    }

    @Test(arguments: [
        "", "localhost", "8080", ":8080", "host:", "host:http", "host:65536", "host:-1", "host:80 ",
        "[::1]", "[::1]8080", "[::1]:", "[]:80", "host:80:x", "[::1:8080", "[127.0.0.1:80",
        // Found by the cursor-address fuzz target: brackets inside the host, which printed as
        // `[1:1]:]]:5` (Fuzz/Corpus/cursor-address/listen-bracket-in-host), and a combining
        // mark that joins the bracket into one Character (…/listen-combining-mark-host).
        "1:1]:]:5", "a]:80", "a[b:80", "[\u{301}::1]:80", "\u{730}1:2:50", "host name:80", "tab\there:80",
    ])
    func rejects(text: String) {
        #expect(ListenAddress(text) == nil)
    }

    @Test(arguments: ["127.0.0.1:8080", "localhost:80", "[::1]:8080", "[fe80::1%eth0]:9000"])
    func descriptionRoundTrips(text: String) throws {
        let address = try #require(ListenAddress(text))
        #expect(address.description == text)
    }

    @Test func ipv6HostsAreBracketed() {
        #expect(ListenAddress(host: "::1", port: 80).description == "[::1]:80")
        #expect(ListenAddress("::1:8080")?.description == "[::1]:8080")
    }

    @Test func codesAsText() throws {
        #expect(try JSON.encode([ListenAddress(host: "::", port: 8080)]) == #"["[::]:8080"]"#)
        #expect(try JSON.decodeValue(ListenAddress.self, #""127.0.0.1:9""#) == ListenAddress(host: "127.0.0.1", port: 9))
    }

    @Test func decodingABadAddressExplains() {
        #expect(JSON.corruption(ListenAddress.self, #""localhost""#)
            == "'localhost' is not HOST:PORT (e.g. 127.0.0.1:8080)")
        #expect(throws: DecodingError.self) { try JSON.decodeValue(ListenAddress.self, "8080") }
    }
}
