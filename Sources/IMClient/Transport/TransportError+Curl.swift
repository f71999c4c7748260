import CCurl
import Foundation

/// How a failed libcurl transfer maps onto `TransportError`; pure, so tests can cover every branch.
extension TransportError {
    /// What libcurl reported about a failed transfer.
    struct CurlFailure {
        var code: CURLcode
        /// CURLOPT_ERRORBUFFER text, or libcurl's generic text for `code`.
        var detail: String
        /// `host:port` of the server.
        var target: String
        /// CURLINFO_OS_ERRNO: the socket error behind a connect failure, 0 if none.
        var osErrno: Int32 = 0
        /// CURLINFO_REQUEST_SIZE > 0: some of the request was written to a socket.
        var requestWritten: Bool = false
        /// The write callback stopped the transfer because the body passed the limit.
        var bodyLimitExceeded: Bool = false
        /// The body limit in bytes, for the message.
        var maxResponseBytes: Int = 0
    }

    init(_ failure: CurlFailure) {
        let code = failure.code
        let target = failure.target
        let detail = failure.detail
        let curlCode = Int(code.rawValue)
        switch code {
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            let reason = failure.osErrno != 0 ? Self.systemText(failure.osErrno) : detail
            self.init(code: .cannotConnect, message: "server not reachable at \(target) (\(reason))",
                      curlCode: curlCode, requestNotSent: true)
        case CURLE_OPERATION_TIMEDOUT:
            // A timeout before any request byte left is as safe to retry as a refused connect.
            let what = failure.requestWritten ? "no complete response from" : "could not connect to"
            self.init(code: .timedOut, message: "\(what) \(target) in time (\(detail))",
                      curlCode: curlCode, requestNotSent: !failure.requestWritten)
        case CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE,
             CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_HTTP3:
            // The server may have acted on the request before the connection broke.
            self.init(code: .connectionLost,
                      message: "connection to \(target) lost before a complete response (\(detail))",
                      curlCode: curlCode, requestNotSent: false)
        case CURLE_FILESIZE_EXCEEDED:
            self = .tooLarge(failure)
        case CURLE_WRITE_ERROR where failure.bodyLimitExceeded:
            self = .tooLarge(failure)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
             CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ENGINE_NOTFOUND,
             CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_CRL_BADFILE,
             CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS,
             CURLE_USE_SSL_FAILED, CURLE_SSL_CLIENTCERT:
            // These fail during the handshake, before the request is written.
            self.init(code: .tls, message: "TLS failure with \(target) (\(detail))",
                      curlCode: curlCode, requestNotSent: true)
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
            self.init(code: .invalidURL, message: "invalid URL for \(target) (\(detail))",
                      curlCode: curlCode, requestNotSent: true)
        default:
            self.init(code: .other, message: "request to \(target) failed (\(detail))",
                      curlCode: curlCode, requestNotSent: !failure.requestWritten)
        }
    }

    /// The error a cancelled request ends with.
    static func cancelled(target: String, shutdown: Bool = false, requestNotSent: Bool) -> TransportError {
        let why = shutdown ? ": the transport shut down" : ""
        return TransportError(code: .cancelled, message: "request to \(target) cancelled\(why)",
                              requestNotSent: requestNotSent)
    }

    private static func tooLarge(_ failure: CurlFailure) -> TransportError {
        TransportError(code: .tooLarge,
                       message: "response from \(failure.target) is larger than the limit of \(failure.maxResponseBytes) bytes",
                       curlCode: Int(failure.code.rawValue), requestNotSent: false)
    }

    /// "connection refused" for ECONNREFUSED: strerror, lower-cased to sit inside a sentence.
    private static func systemText(_ number: Int32) -> String {
        let text = String(cString: strerror(number))
        return text.prefix(1).lowercased() + text.dropFirst()
    }
}
