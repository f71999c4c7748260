import Foundation

/// Runs `wrk` (Debian's package) and reads its summary.
public enum Wrk {
    /// wrk's summary of a run.
    public struct Result: Sendable {
        public var requests: Int
        public var requestsPerSecond: Int
        public var p50: String
        public var p99: String
        public var errors: Int
    }

    /// A Lua script that posts a message per request, rotating through the senders' tokens.
    public static func sendScript(tokens: [String], path: String) -> String {
        let list = tokens.map { "\"\($0)\"" }.joined(separator: ",")
        // Each thread formats one request per sender once and then hands them out in
        // turn: formatting every request in Lua cost wrk about 16 µs of CPU per send, on
        // the cores the server uses, against 10-11 µs per /healthz request; formatted
        // once, 12-14 µs.
        return """
            local tokens = {\(list)}
            local requests = {}
            local counter = 0
            init = function(args)
              for i, token in ipairs(tokens) do
                local body = '{"text":"bench message ' .. i .. '"}'
                requests[i] = wrk.format("POST", "\(path)", {["Authorization"] = "Bearer " .. token, ["Content-Type"] = "application/json"}, body)
              end
            end
            request = function()
              counter = counter + 1
              return requests[(counter % #requests) + 1]
            end
            done = function(summary, latency, requests)
              io.write(string.format("non2xx %d\\n", summary.errors.status))
            end
            """
    }

    /// A Lua script that gets `path` as one user.
    public static func getScript(path: String, token: String) -> String {
        """
        request = function()
          return wrk.format("GET", "\(path)", {["Authorization"] = "Bearer \(token)"})
        end
        done = function(summary, latency, requests)
          io.write(string.format("non2xx %d\\n", summary.errors.status))
        end
        """
    }

    /// Runs wrk with two threads for `seconds` and reads its summary.
    public static func run(url: String, connections: Int, seconds: Int, script: String? = nil, directory: String? = nil) throws -> Result {
        var arguments = ["-t2", "-c\(connections)", "-d\(seconds)s", "--latency"]
        if let script, let directory {
            let path = directory + "/wrk-\(UUID().uuidString).lua"
            try script.write(toFile: path, atomically: true, encoding: .utf8)
            arguments += ["-s", path]
        }
        arguments.append(url)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/wrk")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        var result = Result(requests: 0, requestsPerSecond: 0, p50: "?", p99: "?", errors: 0)
        for line in output.split(separator: "\n") {
            let words = line.split(separator: " ", omittingEmptySubsequences: true)
            if words.count > 1, words[1] == "requests", let value = Int(words[0]) {
                result.requests = value
            } else if words.first == "Requests/sec:", let value = words.last.flatMap({ Double($0) }) {
                result.requestsPerSecond = Int(value)
            } else if words.first == "50%", let value = words.last {
                result.p50 = String(value)
            } else if words.first == "99%", let value = words.last {
                result.p99 = String(value)
            } else if words.first == "non2xx", let value = words.last.flatMap({ Int($0) }) {
                result.errors = value
            } else if words.first == "Non-2xx" {
                result.errors = Int(words.last ?? "0") ?? 0
            }
        }
        return result
    }
}
