extension StringProtocol {
    /// The text without whitespace (newlines included) at either end.
    var trimmedWhitespace: String {
        var slice = Substring(self)
        while slice.first?.isWhitespace == true { slice.removeFirst() }
        while slice.last?.isWhitespace == true { slice.removeLast() }
        return String(slice)
    }
}
