import CCurl
import Foundation
import Synchronization

/// One request in flight: its continuation, the C buffers libcurl reads, the response so far.
///
/// `@unchecked Sendable` because: the hand-off state (`control`) sits in a Mutex; every
/// other mutable property is touched only on the loop thread, which receives the transfer
/// through the loop's Mutex-guarded inbox (that lock orders the accesses).
final class CurlTransfer: @unchecked Sendable {
    private enum Phase { case waiting, queued, finished }

    private struct Control {
        var phase = Phase.waiting
        var cancelRequested = false
        var continuation: CheckedContinuation<TransportResponse, any Error>?
    }

    let request: TransportRequest
    let target: CurlTarget
    private let control = Mutex(Control())

    // Loop thread only, from `attach` to `detach`.
    private(set) var easy: CurlEasy?
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var requestBody: UnsafeMutableRawBufferPointer?
    var responseHeaders: [(name: String, value: String)] = []
    var responseBody = Data()
    var bodyLimitExceeded = false
    let maxResponseBytes: Int
    let log: (@Sendable (String) -> Void)?
    let connectFilter: CurlTransport.ConnectFilter?
    let proxy: CurlTransport.Configuration.Proxy
    /// Why the connect filter refused a connection, when it did.
    var refusedConnection: String?

    /// Validates `request`, so that a bad one fails before it is queued.
    init(request: TransportRequest, configuration: CurlTransport.Configuration) throws(TransportError) {
        target = try CurlTarget(url: request.url)
        try Self.validate(request, target: target.hostPort)
        self.request = request
        maxResponseBytes = configuration.maxResponseBytes
        log = configuration.log
        connectFilter = configuration.connectFilter
        proxy = configuration.proxy
    }

    deinit {
        releaseBuffers()
    }

    // MARK: Hand-off between the caller's task and the loop thread

    /// Queues the transfer on `loop`, or fails at once when it was cancelled first or the loop stopped.
    func start(_ continuation: CheckedContinuation<TransportResponse, any Error>, on loop: CurlEventLoop) {
        let failure: TransportError? = control.withLock { state in
            if state.cancelRequested {
                state.phase = .finished
                return .cancelled(target: target.hostPort, requestNotSent: true)
            }
            state.continuation = continuation
            state.phase = .queued
            // Enqueued under this lock so a concurrent `requestCancel` always follows the add.
            guard loop.enqueue(self) else {
                state.phase = .finished
                state.continuation = nil
                return .cancelled(target: target.hostPort, shutdown: true, requestNotSent: true)
            }
            return nil
        }
        if let failure { continuation.resume(throwing: failure) }
    }

    /// Asks the loop to abandon the transfer; called from the task's cancellation handler.
    func requestCancel(on loop: CurlEventLoop) {
        let queued = control.withLock { state in
            state.cancelRequested = true
            return state.phase == .queued
        }
        if queued { loop.enqueueCancel(self) }
    }

    /// Resumes the caller with `outcome`; later calls do nothing.
    func finish(_ outcome: Result<TransportResponse, TransportError>) {
        let continuation = control.withLock { state in
            state.phase = .finished
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(with: outcome)
    }

    // MARK: Loop thread

    /// True when some request bytes were written to a socket.
    var requestWritten: Bool { (easy?.info(long: CURLINFO_REQUEST_SIZE) ?? 0) > 0 }

    /// The response, or the classified failure, for a transfer libcurl finished with `code`.
    func outcome(for code: CURLcode) -> Result<TransportResponse, TransportError> {
        guard let easy else {
            return .failure(TransportError(code: .other, message: "request to \(target.hostPort) lost its handle"))
        }
        if let refusedConnection {
            return .failure(TransportError(
                code: .other, message: "not connecting to \(target.hostPort): \(refusedConnection)",
                curlCode: Int(code.rawValue), requestNotSent: true))
        }
        guard code == CURLE_OK else {
            return .failure(TransportError(TransportError.CurlFailure(
                code: code, detail: easy.errorText(for: code), target: target.hostPort,
                osErrno: Int32(truncatingIfNeeded: easy.info(long: CURLINFO_OS_ERRNO)),
                requestWritten: requestWritten, bodyLimitExceeded: bodyLimitExceeded,
                maxResponseBytes: maxResponseBytes)))
        }
        let status = easy.info(long: CURLINFO_RESPONSE_CODE)
        return .success(TransportResponse(status: status, headers: responseHeaders, body: responseBody))
    }

    /// Bodies larger than this ask the server before they are sent (`Expect: 100-continue`).
    static let expectContinueBytes = 1 << 20

    /// libcurl's receive buffer per transfer (CURLOPT_BUFFERSIZE; libcurl's least is 1 KiB).
    static let receiveBufferBytes = 4096

    /// Sets every option of `easy` for this request; `easy` is reset first.
    func attach(to easy: CurlEasy, userAgent: String) throws(TransportError) {
        self.easy = easy
        try easy.reset()
        try easy.set(CURLOPT_URL, request.url, "CURLOPT_URL")
        try easy.set(CURLOPT_PROTOCOLS_STR, "http,https", "CURLOPT_PROTOCOLS_STR")
        try easy.set(CURLOPT_NOSIGNAL, 1, "CURLOPT_NOSIGNAL")
        try easy.set(CURLOPT_TIMEOUT_MS, Self.milliseconds(request.timeout), "CURLOPT_TIMEOUT_MS")
        try easy.set(CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(request.connectTimeout),
                     "CURLOPT_CONNECTTIMEOUT_MS")
        try easy.set(CURLOPT_TCP_KEEPALIVE, 1, "CURLOPT_TCP_KEEPALIVE")
        try easy.set(CURLOPT_USERAGENT, userAgent, "CURLOPT_USERAGENT")
        switch proxy {
        case .environment: break
        // An empty proxy is libcurl's "none, whatever the environment says".
        case .none: try easy.set(CURLOPT_PROXY, "", "CURLOPT_PROXY")
        case .url(let url): try easy.set(CURLOPT_PROXY, url, "CURLOPT_PROXY")
        }
        // libcurl's receive buffer lives as long as the transfer, and a runner keeps a
        // parked poll open per bot: 4 KiB instead of the default 16 KiB per transfer
        // (a large answer takes more reads, each a few microseconds).
        try easy.set(CURLOPT_BUFFERSIZE, Self.receiveBufferBytes, "CURLOPT_BUFFERSIZE")
        // Refuses a body announced as too large before any of it arrives.
        try easy.set(CURLOPT_MAXFILESIZE_LARGE, offset: Int64(maxResponseBytes), "CURLOPT_MAXFILESIZE_LARGE")

        let context = Unmanaged.passUnretained(self).toOpaque()
        try easy.set(CURLOPT_WRITEFUNCTION, callback: CurlCallbacks.body, "CURLOPT_WRITEFUNCTION")
        try easy.set(CURLOPT_WRITEDATA, pointer: context, "CURLOPT_WRITEDATA")
        try easy.set(CURLOPT_HEADERFUNCTION, callback: CurlCallbacks.header, "CURLOPT_HEADERFUNCTION")
        try easy.set(CURLOPT_HEADERDATA, pointer: context, "CURLOPT_HEADERDATA")
        if connectFilter != nil {
            try easy.set(CURLOPT_OPENSOCKETFUNCTION, openSocketCallback: CurlCallbacks.openSocket,
                         "CURLOPT_OPENSOCKETFUNCTION")
            try easy.set(CURLOPT_OPENSOCKETDATA, pointer: context, "CURLOPT_OPENSOCKETDATA")
        }
        if log != nil {
            try easy.set(CURLOPT_DEBUGFUNCTION, debugCallback: CurlCallbacks.debug, "CURLOPT_DEBUGFUNCTION")
            try easy.set(CURLOPT_DEBUGDATA, pointer: context, "CURLOPT_DEBUGDATA")
            try easy.set(CURLOPT_VERBOSE, 1, "CURLOPT_VERBOSE")
        }
        try setMethodAndBody(easy)
        try setHeaders(easy)
    }

    /// Frees what libcurl was reading; call after the handle left the multi handle.
    func detach() {
        releaseBuffers()
        easy = nil
    }

    private func setMethodAndBody(_ easy: CurlEasy) throws(TransportError) {
        let method = request.method
        var body = request.body
        if body == nil, ["POST", "PUT", "PATCH"].contains(method) {
            body = Data()  // sends `Content-Length: 0`, which servers expect on these methods
        }
        switch method {
        case "GET" where body == nil:
            try easy.set(CURLOPT_HTTPGET, 1, "CURLOPT_HTTPGET")
        case "HEAD" where body == nil:
            try easy.set(CURLOPT_NOBODY, 1, "CURLOPT_NOBODY")
        case "POST":
            break
        default:
            try easy.set(CURLOPT_CUSTOMREQUEST, method, "CURLOPT_CUSTOMREQUEST")
        }
        guard let body else { return }
        // libcurl reads POSTFIELDS in place while sending: the copy lives until `detach`.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(body.count, 1), alignment: 1)
        requestBody = buffer
        body.copyBytes(to: buffer)
        try easy.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: Int64(body.count), "CURLOPT_POSTFIELDSIZE_LARGE")
        try easy.set(CURLOPT_POSTFIELDS, pointer: buffer.baseAddress, "CURLOPT_POSTFIELDS")
    }

    private func setHeaders(_ easy: CurlEasy) throws(TransportError) {
        var lines = request.headers.map { $0.value.isEmpty ? "\($0.name);" : "\($0.name): \($0.value)" }
        // "Name:" removes a header libcurl would add by itself: only the caller's headers go out.
        // A large body waits for the server's go-ahead (`Expect: 100-continue`): a server
        // that refuses it (413, 401) answers before any of it is sent, instead of closing
        // while it arrives, which resets the connection and can lose the answer.
        if request.header("Expect") == nil {
            lines.append((requestBody?.count ?? 0) > Self.expectContinueBytes ? "Expect: 100-continue" : "Expect:")
        }
        if request.header("Accept") == nil { lines.append("Accept:") }
        if requestBody != nil, request.header("Content-Type") == nil { lines.append("Content-Type:") }
        for line in lines {
            guard let list = curl_slist_append(headerList, line) else {
                throw TransportError(code: .other, message: "out of memory building headers for \(target.hostPort)",
                                     requestNotSent: true)
            }
            headerList = list
        }
        try easy.set(CURLOPT_HTTPHEADER, list: headerList, "CURLOPT_HTTPHEADER")
    }

    private func releaseBuffers() {
        curl_slist_free_all(headerList)
        headerList = nil
        requestBody?.deallocate()
        requestBody = nil
    }

    /// libcurl's timeouts are whole milliseconds and 0 means "never": anything shorter is 1 ms.
    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 1 }
        let capped = min(seconds, 100_000_000)  // about three years; keeps the product in range
        return max(1, Int(capped) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }
}
