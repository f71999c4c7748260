import Glibc

/// The listening socket, made here rather than by MHD so that a failure can say exactly
/// why (address in use, no such local address, permission) and which address it was.
/// MHD takes it over with `MHD_OPTION_LISTEN_SOCKET`.
struct ListenSocket {
    let fd: Int32
    let isIPv6: Bool
    /// `host:port` (IPv6 in brackets) for messages.
    let displayAddress: String

    /// Binds `host:port` (an IPv4 or IPv6 literal, or a local name; port 0 picks a free
    /// port) and listens.
    static func open(host: String, port: Int) throws(HTTPServerError) -> ListenSocket {
        var bareHost = host
        if bareHost.hasPrefix("["), bareHost.hasSuffix("]") {
            bareHost = String(bareHost.dropFirst().dropLast())
        }
        let display = bareHost.contains(":") ? "[\(bareHost)]:\(port)" : "\(bareHost):\(port)"
        guard (0...65_535).contains(port) else {
            throw HTTPServerError(
                code: .cannotBind, message: "cannot listen on \(display): port out of range 0-65535")
        }

        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var found: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(bareHost.isEmpty ? nil : bareHost, String(port), &hints, &found)
        guard status == 0, let info = found else {
            throw HTTPServerError(
                code: .cannotBind,
                message: "cannot listen on \(display): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(found) }

        let family = info.pointee.ai_family
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
                            | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else {
            throw HTTPServerError(
                code: .cannotBind, message: "cannot listen on \(display): socket: \(lastError())")
        }
        // Rebinding right after a stop must work although old connections linger in
        // TIME_WAIT; SO_REUSEADDR still refuses a port another socket listens on.
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))

        if bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) != 0 {
            let code = errno
            close(fd)
            if code == EADDRINUSE {
                throw HTTPServerError(
                    code: .addressInUse,
                    message: "cannot listen on \(display): address already in use "
                        + "(is another server running there?)")
            }
            throw HTTPServerError(
                code: .cannotBind,
                message: "cannot listen on \(display): \(String(cString: strerror(code)))")
        }
        guard listen(fd, SOMAXCONN) == 0 else {
            let reason = lastError()
            close(fd)
            throw HTTPServerError(code: .cannotBind, message: "cannot listen on \(display): \(reason)")
        }
        return ListenSocket(fd: fd, isIPv6: family == AF_INET6, displayAddress: display)
    }

    /// The port actually bound (differs from the asked one when that was 0).
    var boundPort: Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getsockname(fd, $0, &length) == 0
            }
        }
        guard ok else { return 0 }
        return withUnsafePointer(to: &storage) { pointer in
            if isIPv6 {
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin6_port))
                }
            } else {
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin_port))
                }
            }
        }
    }
}

private func lastError() -> String { String(cString: strerror(errno)) }
