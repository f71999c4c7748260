// swift-tools-version:6.0
import Foundation
import PackageDescription

// The fuzz targets (`make fuzz`), a package of its own so that the fuzzing build (libFuzzer
// and AddressSanitizer over every module) never touches the main build's folder or flags.
// It only builds with `--sanitize=fuzzer`: libFuzzer supplies `main`. Fuzz/fuzz.sh has the
// build command.

// A path dependency's identity is its folder's name, whatever the clone is called.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

let package = Package(
    name: "SwitchboardFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "..")],
    targets: [
        .executableTarget(
            name: "switchboard-fuzz",
            dependencies: [.product(name: "SwitchboardLibraries", package: root.lastPathComponent)],
            path: "Sources"),
    ]
)
