import Foundation

extension IMClient {
    /// Checks that the server answers (`GET /healthz`); throws `.unreachable` and the like
    /// when it does not. Needs no login.
    public func checkHealth() async throws(IMClientError) {
        var request = APIRequest("GET", "/healthz")
        request.authenticated = false
        try await callDiscardingBody(request)
    }
}
