import Foundation

/// Every fuzz target, by the name `SWITCHBOARD_FUZZ_TARGET` selects. (Read on libFuzzer's
/// one thread only.)
nonisolated(unsafe) let targets: [String: any FuzzTarget.Type] = [
    "bot-file": BotFileTarget.self,
    "template": TemplateTarget.self,
    "wire": WireTarget.self,
    "cursor-address": CursorAddressTarget.self,
    "webhook": WebhookTarget.self,
    "http": HTTPTarget.self,
]

/// The target this process runs, made once before the first input.
nonisolated(unsafe) private var current: (any FuzzTarget)?

/// libFuzzer calls this once, before it reads its own flags. The target comes from the
/// environment rather than the command line so that libFuzzer's child processes (fork and
/// merge modes re-run the program) find the same one.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(_ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> Int32 {
    let names = targets.keys.sorted().joined(separator: ", ")
    guard let name = ProcessInfo.processInfo.environment["SWITCHBOARD_FUZZ_TARGET"] else {
        FileHandle.standardError.write(Data("set SWITCHBOARD_FUZZ_TARGET to one of: \(names)\n".utf8))
        exit(2)
    }
    guard let type = targets[name] else {
        FileHandle.standardError.write(Data("unknown fuzz target '\(name)'; the targets are: \(names)\n".utf8))
        exit(2)
    }
    do {
        current = try type.init()
    } catch {
        FileHandle.standardError.write(Data("fuzz target '\(name)' could not start: \(error)\n".utf8))
        exit(1)
    }
    return 0
}

/// libFuzzer calls this with every input, on one thread.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let target = current else { return 0 }
    let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    target.run(input)
    return 0
}
