/// Why a soak scenario could not go on: its set-up failed, or what it checks broke.
struct SoakFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
