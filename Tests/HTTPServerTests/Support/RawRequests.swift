/// A GET request with the headers a client sends.
func get(_ target: String, headers: [String] = []) -> String {
    (["GET \(target) HTTP/1.1", "Host: test"] + headers).joined(separator: "\r\n") + "\r\n\r\n"
}
