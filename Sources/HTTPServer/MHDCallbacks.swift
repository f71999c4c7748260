import CMicroHTTPD
import Glibc

// MHD's callbacks. They are plain functions at file scope, so they are nonisolated: a
// closure written inside main-actor code would inherit that isolation and trap when MHD
// calls it from its own threads. Each finds the `DaemonContext` through its closure pointer
// and hands over at once.

/// Access handler: called when a request's headers are in (again, once the admission it
/// waited for is decided), for each piece of its body, when it is complete, and again
/// after a suspended connection is resumed.
func mhdAccessHandler(
    cls: UnsafeMutableRawPointer?, connection: OpaquePointer?,
    url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?,
    uploadData: UnsafePointer<CChar>?, uploadDataSize: UnsafeMutablePointer<Int>?,
    context: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let cls, let connection, let context, let uploadDataSize else { return .NO }
    let core = Unmanaged<DaemonContext>.fromOpaque(cls).takeUnretainedValue()
    guard let raw = context.pointee else {
        return core.headersReceived(
            connection: connection, url: url, method: method, context: context)
    }
    if sb_mhd_is_too_many_arguments(raw) != 0 {
        return core.tooManyArguments(connection: connection)
    }
    let link = Unmanaged<ConnectionLink>.fromOpaque(raw).takeUnretainedValue()
    if link.awaitingAdmission {
        return core.admissionDecided(link: link, connection: connection)
    }
    if uploadDataSize.pointee > 0 {
        return core.bodyReceived(
            link: link, data: UnsafeRawPointer(uploadData), size: uploadDataSize)
    }
    if link.dispatched {
        return core.resumed(link: link, connection: connection)
    }
    return core.requestReceived(link: link, connection: connection)
}

/// A request is over: its response was sent, or the connection failed or closed.
func mhdRequestCompleted(
    cls: UnsafeMutableRawPointer?, connection: OpaquePointer?,
    context: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
    reason: MHD_RequestTerminationCode
) {
    guard let cls else { return }
    let core = Unmanaged<DaemonContext>.fromOpaque(cls).takeUnretainedValue()
    var link: ConnectionLink?
    if let raw = context?.pointee, sb_mhd_is_too_many_arguments(raw) == 0 {
        link = Unmanaged<ConnectionLink>.fromOpaque(raw).takeRetainedValue()
        context?.pointee = nil
    }
    core.requestCompleted(link: link, connection: connection)
}

/// A TCP connection opened or closed; its `ConnectionState` lives in between as MHD's
/// socket context (retained).
func mhdNotifyConnection(
    cls: UnsafeMutableRawPointer?, connection: OpaquePointer?,
    socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
    event: MHD_ConnectionNotificationCode
) {
    guard let cls, let connection, let socketContext else { return }
    let core = Unmanaged<DaemonContext>.fromOpaque(cls).takeUnretainedValue()
    switch event {
    case .CONNECTION_NOTIFY_STARTED:
        let state = core.connectionOpened(connection)
        socketContext.pointee = Unmanaged.passRetained(state).toOpaque()
    case .CONNECTION_NOTIFY_CLOSED:
        guard let raw = socketContext.pointee else { return }
        socketContext.pointee = nil
        core.connectionClosed(Unmanaged<ConnectionState>.fromOpaque(raw).takeRetainedValue())
    @unknown default:
        break
    }
}

/// MHD's error log, printf-style; rendered and handed to the configured log hook.
func mhdLog(cls: UnsafeMutableRawPointer?, format: UnsafePointer<CChar>?, arguments: CVaListPointer?) {
    guard let cls, let format, let arguments else { return }
    let core = Unmanaged<DaemonContext>.fromOpaque(cls).takeUnretainedValue()
    let message = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 1024) { buffer in
        guard let base = buffer.baseAddress else { return "" }
        let written = vsnprintf(base, buffer.count, format, arguments)
        let length = min(max(Int(written), 0), buffer.count - 1)
        return String(decoding: UnsafeRawBufferPointer(start: base, count: length), as: UTF8.self)
    }
    var trimmed = Substring(message)
    while trimmed.last?.isNewline == true { trimmed = trimmed.dropLast() }
    core.log(String(trimmed))
}

/// The `ConnectionState` MHD keeps for a connection.
func connectionState(of connection: OpaquePointer) -> ConnectionState? {
    guard let raw = sb_mhd_socket_context(connection) else { return nil }
    return Unmanaged<ConnectionState>.fromOpaque(raw).takeUnretainedValue()
}
