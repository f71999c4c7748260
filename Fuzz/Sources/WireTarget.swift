import Foundation
import IMProtocol
@testable import IMServer

/// The JSON the server reads and writes: every request body type, the answers clients
/// decode, the server's hand-written reader of a sent message, and its hand-written
/// writer of messages and event batches.
///
/// Invariants: what decodes, re-encodes to the same value; `WireReader` either declines
/// (and the decoder reads the body) or reads exactly what the decoder reads; `WireWriter`
/// writes exactly the bytes of the wire encoder.
struct WireTarget: FuzzTarget {
    init() {}

    func run(_ input: [UInt8]) {
        let body = Data(input)
        let decoder = WireJSON.decoder()
        let encoder = WireJSON.encoder()
        func roundTrip<T: Codable & Equatable>(_ type: T.Type) {
            guard let value = try? decoder.decode(T.self, from: body) else { return }
            let again: T
            do {
                again = try decoder.decode(T.self, from: try encoder.encode(value))
            } catch {
                require(false, "\(T.self) decoded but its encoding does not decode: \(error)")
                return
            }
            require(again == value, "\(T.self) changed across encode and decode: \(value) → \(again)")
        }
        // Request bodies (what clients send the server).
        roundTrip(RegisterRequest.self)
        roundTrip(LoginRequest.self)
        roundTrip(PasswordChange.self)
        roundTrip(ProfileUpdate.self)
        roundTrip(AdminCreateUser.self)
        roundTrip(AdminSetPassword.self)
        roundTrip(CreateConversationRequest.self)
        roundTrip(ConversationInfoUpdate.self)
        roundTrip(ReadMarker.self)
        roundTrip(SendMessageRequest.self)
        // Answers (what clients read from a server).
        roundTrip(AuthResponse.self)
        roundTrip(ErrorEnvelope.self)
        roundTrip(ConversationList.self)
        roundTrip(MessagePage.self)
        roundTrip(MemberList.self)
        roundTrip(UserList.self)

        let decoded = try? decoder.decode(SendMessageRequest.self, from: body)
        if let fast = WireReader.sendMessageRequest(body) {
            require(decoded == fast, "WireReader read \(fast), the decoder \(String(describing: decoded))")
        }
        if let message = try? decoder.decode(Message.self, from: body), let expected = try? encoder.encode(message) {
            let written = WireWriter.encode(message)
            require(written == expected, "WireWriter wrote \(String(decoding: written, as: UTF8.self)), the encoder \(String(decoding: expected, as: UTF8.self))")
        }
        if let batch = try? decoder.decode(EventBatch.self, from: body), let expected = try? encoder.encode(batch) {
            guard let written = try? WireWriter.encode(batch, fallback: encoder) else {
                require(false, "WireWriter failed on a batch the encoder writes")
                return
            }
            require(written == expected, "WireWriter wrote \(String(decoding: written, as: UTF8.self)), the encoder \(String(decoding: expected, as: UTF8.self))")
        }
    }
}
