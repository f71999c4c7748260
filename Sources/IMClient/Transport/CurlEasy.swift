import CCurl

/// libcurl's process-wide set-up, done once before the first handle is made.
enum CurlGlobal {
    /// Why libcurl could not start, or nil; Swift evaluates a static `let` exactly once, thread-safely.
    static let startupError: TransportError? = {
        let code = curl_global_init(Int(CURL_GLOBAL_ALL))
        guard code != CURLE_OK else { return nil }
        return TransportError(code: .other, message: "libcurl failed to initialise (\(curlText(code)))",
                              curlCode: Int(code.rawValue), requestNotSent: true)
    }()

    /// libcurl's one-line text for `code`.
    static func curlText(_ code: CURLcode) -> String {
        String(cString: curl_easy_strerror(code))
    }
}

/// Owns one libcurl easy handle and its error buffer; used only on the loop thread.
final class CurlEasy {
    let handle: UnsafeMutableRawPointer
    /// CURLOPT_ERRORBUFFER: libcurl's detailed text for the last failure.
    private let errorBuffer: UnsafeMutablePointer<CChar>

    init() throws(TransportError) {
        if let error = CurlGlobal.startupError { throw error }
        guard let handle = curl_easy_init() else {
            throw TransportError(code: .other, message: "libcurl could not create a transfer (out of memory?)",
                                 requestNotSent: true)
        }
        self.handle = handle
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    deinit {
        curl_easy_cleanup(handle)
        errorBuffer.deallocate()
    }

    /// Clears every option (keeping the handle's caches) and re-arms the error buffer.
    func reset() throws(TransportError) {
        curl_easy_reset(handle)
        errorBuffer[0] = 0
        try check(sb_curl_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer), "CURLOPT_ERRORBUFFER")
    }

    /// libcurl's detailed text for the last failure, or its generic text for `code`.
    func errorText(for code: CURLcode) -> String {
        errorBuffer[0] != 0 ? String(cString: errorBuffer) : CurlGlobal.curlText(code)
    }

    /// Turns a failed `CURLcode` from a set-up call into a `TransportError`.
    func check(_ code: CURLcode, _ context: @autoclosure () -> String) throws(TransportError) {
        guard code != CURLE_OK else { return }
        throw TransportError(code: .other, message: "libcurl rejected \(context()): \(errorText(for: code))",
                             curlCode: Int(code.rawValue), requestNotSent: true)
    }

    // MARK: Options

    func set(_ option: CURLoption, _ value: Int, _ name: @autoclosure () -> String) throws(TransportError) {
        try check(sb_curl_easy_setopt_long(handle, option, value), name())
    }

    func set(_ option: CURLoption, offset value: Int64, _ name: @autoclosure () -> String) throws(TransportError) {
        try check(sb_curl_easy_setopt_off_t(handle, option, curl_off_t(value)), name())
    }

    /// libcurl copies string options, so `value` need not outlive the call.
    func set(_ option: CURLoption, _ value: String, _ name: @autoclosure () -> String) throws(TransportError) {
        try check(sb_curl_easy_setopt_string(handle, option, value), name())
    }

    /// libcurl keeps `value` as is: the caller keeps it alive until the transfer ends.
    func set(_ option: CURLoption, pointer value: UnsafeMutableRawPointer?,
             _ name: @autoclosure () -> String) throws(TransportError) {
        try check(sb_curl_easy_setopt_pointer(handle, option, value), name())
    }

    /// libcurl keeps `list`: the caller frees it after the transfer ends.
    func set(_ option: CURLoption, list: UnsafeMutablePointer<curl_slist>?,
             _ name: @autoclosure () -> String) throws(TransportError) {
        try check(sb_curl_easy_setopt_slist(handle, option, list), name())
    }

    func set(_ option: CURLoption, callback: curl_write_callback,
             _ name: @autoclosure () -> String) throws(TransportError) {
        try check(sb_curl_easy_setopt_write_callback(handle, option, callback), name())
    }

    func set(_ option: CURLoption, openSocketCallback: curl_opensocket_callback,
             _ name: @autoclosure () -> String) throws(TransportError) {
        try check(sb_curl_easy_setopt_opensocket_callback(handle, option, openSocketCallback), name())
    }

    func set(_ option: CURLoption, debugCallback: curl_debug_callback,
             _ name: @autoclosure () -> String) throws(TransportError) {
        try check(sb_curl_easy_setopt_debug_callback(handle, option, debugCallback), name())
    }

    // MARK: Information about a finished transfer (0 / nil when libcurl has none)

    func info(long info: CURLINFO) -> Int {
        var value = 0
        return sb_curl_easy_getinfo_long(handle, info, &value) == CURLE_OK ? value : 0
    }

    func info(offset info: CURLINFO) -> Int64 {
        var value: curl_off_t = 0
        return sb_curl_easy_getinfo_off_t(handle, info, &value) == CURLE_OK ? Int64(value) : 0
    }

    func info(string info: CURLINFO) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard sb_curl_easy_getinfo_string(handle, info, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }
}
