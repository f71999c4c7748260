import Foundation
import IMProtocol
import Testing

@testable import IMServer

/// A sent message's body, and a read marker's, are read without Foundation's decoder when
/// they have the plain shape; whatever it accepts must decode to exactly what the decoder
/// gives, and everything doubtful must be left to the decoder.
@Suite struct WireReaderTests {
    static func decoded(_ text: String) -> SendMessageRequest? { decoded(Data(text.utf8)) }

    static func decoded(_ data: Data) -> SendMessageRequest? {
        try? WireJSON.decoder().decode(SendMessageRequest.self, from: data)
    }

    /// The reader never accepts what the decoder refuses, nor reads anything differently.
    static func expectAgreement(_ data: Data, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let fast = WireReader.sendMessageRequest(data) else { return }
        #expect(
            fast == decoded(data), "\(String(decoding: data, as: UTF8.self).debugDescription)",
            sourceLocation: sourceLocation)
    }

    @Test(arguments: [
        #"{"text":"hi"}"#, #"{"text":""}"#, #" { "text" : "hi" , "client_msg_id" : "c-1" } "#,
        #"{"client_msg_id":"abc","text":"x","reply_to":"42"}"#, #"{"text":"x","reply_to":42}"#,
        #"{"text":"x","reply_to":null,"client_msg_id":null}"#,
        #"{"text":"a\"b\\c\/d\b\f\n\r\t e\u00e9\u20AC \ud83c\udf89"}"#, "{\"text\":\"héllo 🎉 漢字\"}",
        "{\n\t\"text\":\r\n\"multi\\nline\"\n}",
    ])
    func plainBodiesAreReadAsTheDecoderReadsThem(body: String) throws {
        let fast = try #require(WireReader.sendMessageRequest(Data(body.utf8)))
        #expect(fast == Self.decoded(body))
    }

    @Test(arguments: [
        "", " ", "{}", "[]", "null", #"{"text":null}"#, #"{"text":1}"#, #"{"text":"a","text":"b"}"#,
        #"{"text":"a","other":1}"#, #"{"te\u0078t":"a"}"#, #"{"text":"a",}"#, #"{"text":"a"} x"#,
        #"{"text":"a\x"}"#, #"{"text":"\ud83c"}"#, #"{"text":"\udf89"}"#, #"{"text":"\u12"}"#,
        #"{"text":"a","reply_to":0}"#, #"{"text":"a","reply_to":-1}"#, #"{"text":"a","reply_to":1.5}"#,
        #"{"text":"a","reply_to":1e3}"#, #"{"text":"a","reply_to":012}"#, #"{"text":"a","reply_to":"012"}"#,
        #"{"text":"a","reply_to":"x"}"#, #"{"text":"a","reply_to":99999999999999999999}"#,
        #"{"text":"a","client_msg_id":5}"#, "{\"text\":\"tab\there\"}", "\u{FEFF}{\"text\":\"bom\"}",
        #"{"text":"a"}{"text":"b"}"#, #"{"text":"a" "client_msg_id":"b"}"#, #"{"text":{"a":1}}"#,
    ])
    func doubtfulBodiesAreLeftToTheDecoder(body: String) {
        #expect(WireReader.sendMessageRequest(Data(body.utf8)) == nil)
    }

    @Test func encodedRequestsOfEveryCharacterAreReadAsTheDecoderReadsThem() throws {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [Unicode.Scalar] =
            (0..<0x80).compactMap { Unicode.Scalar($0) }
            + ["é", "€", "漢", "🎉", "\u{2028}", "\u{FEFF}", "\u{10FFFF}", "\u{7F}"]
        let encoder = WireJSON.encoder()
        for round in 0..<500 {
            let text = String(String.UnicodeScalarView((0..<Int.random(in: 0...40, using: &generator)).map { _ in
                alphabet.randomElement(using: &generator) ?? "a"
            }))
            let request = SendMessageRequest(
                text: text, clientMessageID: round % 3 == 0 ? nil : "id-\(round)",
                replyTo: round % 4 == 0 ? nil : MessageID(rawValue: Int64.random(in: 1...Int64(1) << 50, using: &generator)))
            let data = try encoder.encode(request)
            let fast = try #require(WireReader.sendMessageRequest(data), "\(String(decoding: data, as: UTF8.self))")
            #expect(fast == request)
        }
    }

    @Test func truncatedAndAlteredBodiesNeverDisagreeWithTheDecoder() {
        let bodies = [
            #"{"text":"héllo \"you\" \u00e9\ud83c\udf89","client_msg_id":"c-1","reply_to":"42"}"#,
            #"{ "reply_to" : 7 , "text" : "a\nb" , "client_msg_id" : null }"#,
        ]
        let replacements: [UInt8] = [0x00, 0x09, 0x20, 0x22, 0x2C, 0x30, 0x39, 0x3A, 0x5C, 0x75, 0x7B, 0x7D, 0x80, 0xC3, 0xFF]
        for body in bodies {
            let bytes = Array(body.utf8)
            for end in 0...bytes.count { Self.expectAgreement(Data(bytes[..<end])) }
            for position in bytes.indices {
                for replacement in replacements {
                    var altered = bytes
                    altered[position] = replacement
                    Self.expectAgreement(Data(altered))
                }
                var shortened = bytes
                shortened.remove(at: position)
                Self.expectAgreement(Data(shortened))
            }
        }
    }

    // MARK: Read markers

    @Test(arguments: [#"{"seq":0}"#, #"{"seq":7}"#, #" { "seq" : 123456789012345678 } "#, "{\n\t\"seq\":\r\n42\n}"])
    func plainMarkersAreReadAsTheDecoderReadsThem(body: String) throws {
        let fast = try #require(WireReader.readMarker(Data(body.utf8)))
        #expect(fast == (try WireJSON.decoder().decode(ReadMarker.self, from: Data(body.utf8))))
    }

    @Test(arguments: [
        "", "{}", "[]", "null", #"{"seq":null}"#, #"{"seq":"1"}"#, #"{"seq":-1}"#, #"{"seq":01}"#, #"{"seq":1.0}"#,
        #"{"seq":1e2}"#, #"{"seq":1,"seq":2}"#, #"{"seq":1,"other":2}"#, #"{"se\u0071":1}"#, #"{"seq":1,}"#,
        #"{"seq":1} x"#, #"{"seq":1234567890123456789}"#, #"{"seq":99999999999999999999}"#, #"{"seq":true}"#,
        "\u{FEFF}{\"seq\":1}",
    ])
    func doubtfulMarkersAreLeftToTheDecoder(body: String) {
        #expect(WireReader.readMarker(Data(body.utf8)) == nil)
    }

    @Test func truncatedAndAlteredMarkersNeverDisagreeWithTheDecoder() {
        let replacements: [UInt8] = [0x00, 0x09, 0x20, 0x22, 0x2B, 0x2C, 0x2D, 0x2E, 0x30, 0x39, 0x3A, 0x45, 0x65, 0x7B, 0x7D, 0xFF]
        for body in [#"{"seq":12345}"#, #" { "seq" : 0 } "#] {
            let bytes = Array(body.utf8)
            var variants = (0...bytes.count).map { Array(bytes[..<$0]) }
            for position in bytes.indices {
                for replacement in replacements {
                    var altered = bytes
                    altered[position] = replacement
                    variants.append(altered)
                }
                var shortened = bytes
                shortened.remove(at: position)
                variants.append(shortened)
            }
            for variant in variants {
                let data = Data(variant)
                guard let fast = WireReader.readMarker(data) else { continue }
                #expect(
                    fast == (try? WireJSON.decoder().decode(ReadMarker.self, from: data)),
                    "\(String(decoding: data, as: UTF8.self).debugDescription)")
            }
        }
    }
}
