import IMProtocol

/// The directory of groups anyone may find.
extension IMClient {
    /// One page of the groups that are `open` or take requests, in name order: those
    /// whose name or title contains `search` (any case) when given, after `after` (the
    /// previous page's `nextAfter`). `limit` is 1...100 (the server's default is 50). A
    /// page may hold fewer groups while `nextAfter` is set: the server looks at a bounded
    /// number of groups per request.
    public func directory(search: String? = nil, after: String? = nil, limit: Int? = nil)
        async throws(IMClientError) -> DirectoryPage
    {
        var query: [(name: String, value: String)] = []
        if let search, !search.isEmpty { query.append(("q", search)) }
        if let after { query.append(("after", after)) }
        if let limit {
            guard (1...100).contains(limit) else {
                throw IMClientError(.invalidArgument, "a directory page holds 1 to 100 groups, not \(limit)")
            }
            query.append(("limit", String(limit)))
        }
        return try await call(APIRequest("GET", "/v1/directory/groups", query: query))
    }
}
