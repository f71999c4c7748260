import CCurl
import Foundation
import Testing
@testable import IMClient

/// The pure pieces of the libcurl transport: error classification, timeouts, header parsing.
@Suite("CurlTransport mapping")
struct CurlMappingTests {
    static let target = "api.example:8080"

    static func classify(_ code: CURLcode, written: Bool = true, errno osErrno: Int32 = 0,
                         overLimit: Bool = false) -> TransportError {
        TransportError(TransportError.CurlFailure(
            code: code, detail: "curl says", target: target, osErrno: osErrno,
            requestWritten: written, bodyLimitExceeded: overLimit, maxResponseBytes: 100))
    }

    @Test(arguments: [CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY])
    func connectFailuresAreCannotConnectAndNotSent(code: CURLcode) {
        let error = Self.classify(code, written: false)

        #expect(error.code == .cannotConnect)
        #expect(error.requestNotSent)
        #expect(error.message == "server not reachable at \(Self.target) (curl says)")
        #expect(error.curlCode == Int(code.rawValue))
    }

    @Test func refusedConnectNamesTheSystemReason() {
        let error = Self.classify(CURLE_COULDNT_CONNECT, written: false, errno: ECONNREFUSED)

        #expect(error.message == "server not reachable at \(Self.target) (connection refused)")
    }

    @Test(arguments: [CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE, CURLE_HTTP2_STREAM])
    func brokenConnectionsAreConnectionLostAndMayHaveBeenProcessed(code: CURLcode) {
        let error = Self.classify(code)

        #expect(error.code == .connectionLost)
        #expect(!error.requestNotSent)
        #expect(error.message.contains(Self.target))
    }

    @Test func timeoutIsRetrySafeOnlyWhenNothingWasWritten() {
        let beforeSending = Self.classify(CURLE_OPERATION_TIMEDOUT, written: false)
        let afterSending = Self.classify(CURLE_OPERATION_TIMEDOUT, written: true)

        #expect(beforeSending.code == .timedOut)
        #expect(beforeSending.requestNotSent)
        #expect(afterSending.code == .timedOut)
        #expect(!afterSending.requestNotSent)
    }

    @Test func writeErrorIsTooLargeOnlyWhenTheBodyLimitStoppedIt() {
        #expect(Self.classify(CURLE_WRITE_ERROR, overLimit: true).code == .tooLarge)
        #expect(Self.classify(CURLE_FILESIZE_EXCEEDED).code == .tooLarge)
        #expect(Self.classify(CURLE_WRITE_ERROR, overLimit: false).code == .other)
    }

    @Test(arguments: [CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE])
    func tlsFailuresAreTLSAndNotSent(code: CURLcode) {
        let error = Self.classify(code, written: false)

        #expect(error.code == .tls)
        #expect(error.requestNotSent)
    }

    @Test func unknownFailureKeepsCurlsText() {
        let error = Self.classify(CURLE_BAD_CONTENT_ENCODING)

        #expect(error.code == .other)
        #expect(error.message == "request to \(Self.target) failed (curl says)")
    }

    @Test func timeoutsBecomeWholeMillisecondsAndNeverZero() {
        #expect(CurlTransfer.milliseconds(.milliseconds(200)) == 200)
        #expect(CurlTransfer.milliseconds(.seconds(50)) == 50_000)
        #expect(CurlTransfer.milliseconds(.microseconds(2500)) == 2)
        // libcurl reads 0 as "no timeout": a zero or negative limit must still expire.
        #expect(CurlTransfer.milliseconds(.zero) == 1)
        #expect(CurlTransfer.milliseconds(.microseconds(10)) == 1)
        #expect(CurlTransfer.milliseconds(.seconds(-5)) == 1)
        #expect(CurlTransfer.milliseconds(.seconds(Int64.max)) > 0)
    }

    @Test func headersOfAnInterimResponseAreDropped() throws {
        let transfer = try CurlTransfer(request: TransportRequest(url: "http://h:1/"), configuration: .init())
        let lines = ["HTTP/1.1 100 Continue\r\n", "X-Interim: yes\r\n", "\r\n",
                     "HTTP/1.1 200 OK\r\n", "Content-Type:  text/plain \r\n", "X-Long: first\r\n",
                     "\t second\r\n", "Set-Cookie: a=1\r\n", "Set-Cookie: b=2\r\n", "\r\n"]

        for line in lines {
            Array(line.utf8).withUnsafeBytes { transfer.receiveHeaderLine($0) }
        }

        #expect(transfer.responseHeaders.map(\.name) == ["Content-Type", "X-Long", "Set-Cookie", "Set-Cookie"])
        #expect(transfer.responseHeaders.map(\.value) == ["text/plain", "first second", "a=1", "b=2"])
    }

    @Test func tokensAllowWhatHTTPAllows() {
        #expect(CurlTransfer.isToken("GET"))
        #expect(CurlTransfer.isToken("X-Request-Id"))
        #expect(!CurlTransfer.isToken("GET /x"))
        #expect(!CurlTransfer.isToken("Name:"))
        #expect(!CurlTransfer.isToken(""))
    }

    @Test func targetIncludesTheDefaultPort() throws {
        #expect(try CurlTarget(url: "https://example.org/v1").hostPort == "example.org:443")
        #expect(try CurlTarget(url: "http://127.0.0.1/v1").hostPort == "127.0.0.1:80")
        #expect(try CurlTarget(url: "HTTP://[::1]:8080/").hostPort == "[::1]:8080")
    }
}
