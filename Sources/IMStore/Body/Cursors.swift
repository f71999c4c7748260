import IMProtocol

/// Who hears of the store's commits (`EventStore`).
extension StoreEngine {
    public func observeFeeds(_ observer: @escaping @Sendable (FeedUpdate) -> Void) {
        notifier.observe(observer)
    }
}
