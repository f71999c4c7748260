/// Checks a request before it is queued, so bad input fails with a clear error and never
/// reaches the wire (a CR or LF in a header would otherwise let it smuggle extra headers).
extension CurlTransfer {
    static func validate(_ request: TransportRequest, target: String) throws(TransportError) {
        guard isToken(request.method) else {
            throw invalid("invalid HTTP method '\(request.method)' for \(target)")
        }
        for header in request.headers {
            guard isToken(header.name) else {
                throw invalid("invalid header name '\(header.name)' in a request to \(target)")
            }
            guard !header.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                throw invalid("header '\(header.name)' in a request to \(target) contains a line break or NUL")
            }
        }
    }

    /// RFC 9110 `token`: what a method or a header name may consist of.
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }

    private static func invalid(_ message: String) -> TransportError {
        TransportError(code: .other, message: message, requestNotSent: true)
    }
}
