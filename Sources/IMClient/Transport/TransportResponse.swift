import Foundation

/// A complete HTTP response: the final one, after any `100 Continue`.
public struct TransportResponse: Sendable {
    /// The status code, e.g. 200 or 429.
    public var status: Int
    /// Header fields in the order received, names as the server spelled them.
    public var headers: [(name: String, value: String)]
    /// The whole body (empty when there was none).
    public var body: Data

    /// Creates a response; used by the transports and by fakes in tests.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of the header `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }
}
