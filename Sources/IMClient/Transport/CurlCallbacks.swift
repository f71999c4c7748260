import CCurl
import Foundation

/// The C callbacks libcurl calls on the loop thread; their context is the `CurlTransfer`.
///
/// They are static properties of a nonisolated type on purpose: a closure created inside an
/// actor-isolated function would inherit that isolation and trap when a C thread calls it.
/// The transfer is retained by the loop's table of active transfers while libcurl can call.
enum CurlCallbacks {
    /// CURLOPT_WRITEFUNCTION: appends body bytes; returning less than given aborts the transfer.
    static let body: curl_write_callback = { data, size, count, context in
        guard let context else { return 0 }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        guard length > 0, let data else { return length }
        guard transfer.responseBody.count + length <= transfer.maxResponseBytes else {
            transfer.bodyLimitExceeded = true
            return 0
        }
        transfer.responseBody.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: length)
        return length
    }

    /// CURLOPT_HEADERFUNCTION: one header line at a time, status lines included.
    static let header: curl_write_callback = { data, size, count, context in
        guard let context else { return 0 }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        guard length > 0, let data else { return length }
        let line = UnsafeRawBufferPointer(start: data, count: length)
        transfer.receiveHeaderLine(line)
        return length
    }

    /// CURLOPT_DEBUGFUNCTION: libcurl's verbose text and header lines, to the configured log hook.
    static let debug: curl_debug_callback = { _, kind, data, size, context in
        guard let context, let data, size > 0 else { return 0 }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
        let prefix: String
        switch kind {
        case CURLINFO_TEXT: prefix = "* "
        case CURLINFO_HEADER_IN: prefix = "< "
        case CURLINFO_HEADER_OUT: prefix = "> "
        default: return 0  // bodies and TLS records are not logged
        }
        let text = String(decoding: UnsafeRawBufferPointer(start: data, count: size), as: UTF8.self)
        for line in text.split(whereSeparator: \.isNewline) {
            transfer.log?(prefix + line)
        }
        return 0
    }
}

extension CurlTransfer {
    /// Collects the final response's headers: a status line (of a `100 Continue`, a proxy's
    /// CONNECT answer, ...) starts the list over.
    func receiveHeaderLine(_ raw: UnsafeRawBufferPointer) {
        var bytes = raw[...]
        while let last = bytes.last, last == 0x0D || last == 0x0A { bytes = bytes.dropLast() }
        guard let first = bytes.first else { return }
        if bytes.starts(with: "HTTP/".utf8) {
            responseHeaders.removeAll(keepingCapacity: true)
        } else if first == 0x20 || first == 0x09 {
            // Obsolete line folding: the line continues the previous value.
            guard !responseHeaders.isEmpty else { return }
            let more = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespaces)
            responseHeaders[responseHeaders.count - 1].value += " " + more
        } else if let colon = bytes.firstIndex(of: UInt8(ascii: ":")) {
            let name = String(decoding: bytes[..<colon], as: UTF8.self)
            let value = String(decoding: bytes[(colon + 1)...], as: UTF8.self)
                .trimmingCharacters(in: .whitespaces)
            responseHeaders.append((name: name, value: value))
        }
    }
}
