import CCurl

/// Owns one libcurl multi handle: many transfers driven by one thread.
///
/// Only the loop thread calls into it, except `wakeup()`, which libcurl allows from any
/// thread while the handle exists.
final class CurlMulti {
    let handle: UnsafeMutableRawPointer

    init() throws(TransportError) {
        if let error = CurlGlobal.startupError { throw error }
        guard let handle = curl_multi_init() else {
            throw TransportError(code: .other, message: "libcurl could not create a multi handle (out of memory?)",
                                 requestNotSent: true)
        }
        self.handle = handle
    }

    deinit {
        curl_multi_cleanup(handle)
    }

    /// Turns a failed `CURLMcode` into a `TransportError`.
    func check(_ code: CURLMcode, _ context: @autoclosure () -> String) throws(TransportError) {
        guard code != CURLM_OK else { return }
        throw TransportError(code: .other,
                             message: "libcurl failed in \(context()): \(String(cString: curl_multi_strerror(code)))",
                             curlCode: Int(code.rawValue), requestNotSent: true)
    }

    func set(_ option: CURLMoption, _ value: Int, _ name: @autoclosure () -> String) throws(TransportError) {
        try check(sb_curl_multi_setopt_long(handle, option, value), name())
    }

    func add(_ easy: CurlEasy) throws(TransportError) {
        try check(curl_multi_add_handle(handle, easy.handle), "curl_multi_add_handle")
    }

    /// Detaches `easy`; a finished transfer's connection stays in the cache for reuse.
    func remove(_ easy: CurlEasy) throws(TransportError) {
        try check(curl_multi_remove_handle(handle, easy.handle), "curl_multi_remove_handle")
    }

    /// Moves every transfer as far as it can go without blocking.
    func perform() throws(TransportError) {
        var running: Int32 = 0
        try check(curl_multi_perform(handle, &running), "curl_multi_perform")
    }

    /// Blocks until a socket is ready, a libcurl timer is due, `wakeup()` is called, or `milliseconds` pass.
    func poll(milliseconds: Int32) throws(TransportError) {
        try check(curl_multi_poll(handle, nil, 0, milliseconds, nil), "curl_multi_poll")
    }

    /// Makes a blocked `poll` return; safe from any thread.
    func wakeup() {
        _ = curl_multi_wakeup(handle)
    }

    /// The next finished transfer: its easy handle and result.
    func nextFinished() -> (easy: UnsafeMutableRawPointer, result: CURLcode)? {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(handle, &remaining) {
            if message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle {
                return (easy, message.pointee.data.result)
            }
        }
        return nil
    }
}
