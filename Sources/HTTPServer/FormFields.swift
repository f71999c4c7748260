import CMicroHTTPD
import Foundation

/// One field of a form body (`application/x-www-form-urlencoded` or
/// `multipart/form-data`), as libmicrohttpd's POST processor decoded it.
public struct FormField: Sendable {
    public var name: String
    /// The value's bytes (a file's contents for an uploaded file).
    public var value: Data
    /// Set for an uploaded file: the name its sender gave it.
    public var filename: String?
    /// The part's own `Content-Type`, when it has one.
    public var contentType: String?

    public init(name: String, value: Data, filename: String? = nil, contentType: String? = nil) {
        self.name = name
        self.value = value
        self.filename = filename
        self.contentType = contentType
    }

    /// The value as UTF-8 text (invalid bytes replaced).
    public var text: String { String(decoding: value, as: UTF8.self) }
}

/// Decodes a complete form body with libmicrohttpd's POST processor, which reads the
/// encoding and the multipart boundary from the connection's `Content-Type`. Runs on the
/// connection's thread, before the request is handed to its task.
enum FormDecoder {
    /// The fields of `body`, or nil when the connection's `Content-Type` is neither form
    /// encoding or the body does not parse.
    static func fields(of body: Data, on connection: OpaquePointer) -> [FormField]? {
        var collected: [FormField] = []
        return withUnsafeMutablePointer(to: &collected) { pointer -> [FormField]? in
            // 64 KiB holds any one field's name and header lines; values are handed over in pieces.
            guard let processor = MHD_create_post_processor(connection, 64 << 10, collectFormData, pointer) else {
                return nil
            }
            defer { MHD_destroy_post_processor(processor) }
            let ok = body.withUnsafeBytes { bytes -> Bool in
                guard let base = bytes.baseAddress, bytes.count > 0 else { return true }
                return MHD_post_process(processor, base.assumingMemoryBound(to: CChar.self), bytes.count) == .YES
            }
            return ok ? pointer.pointee : nil
        }
    }
}

/// libmicrohttpd's POST iterator: each call is a piece of one field's value, from offset
/// `off`; a field starts at offset 0.
private func collectFormData(
    cls: UnsafeMutableRawPointer?, kind: MHD_ValueKind, key: UnsafePointer<CChar>?,
    filename: UnsafePointer<CChar>?, contentType: UnsafePointer<CChar>?, transferEncoding: UnsafePointer<CChar>?,
    data: UnsafePointer<CChar>?, off: UInt64, size: Int
) -> MHD_Result {
    guard let cls else { return .NO }
    let collected = cls.assumingMemoryBound(to: [FormField].self)
    let piece = data.map { Data(bytes: $0, count: size) } ?? Data()
    if off == 0 || collected.pointee.isEmpty {
        collected.pointee.append(
            FormField(
                name: key.map { String(cString: $0) } ?? "", value: piece,
                filename: filename.map { String(cString: $0) }, contentType: contentType.map { String(cString: $0) }))
    } else {
        collected.pointee[collected.pointee.count - 1].value.append(piece)
    }
    return .YES
}
