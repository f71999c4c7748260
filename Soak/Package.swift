// swift-tools-version:6.0
import Foundation
import PackageDescription

// The kill, storage-fault and abuse tests (`make soak`): a program that runs the real
// `switchboard` executable as a child process on loopback, breaks it, and checks what
// clients see. A package of its own so that `make test` neither builds nor runs it.

// A path dependency's identity is its folder's name, whatever the clone is called.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

let package = Package(
    name: "SwitchboardSoak",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "..")],
    targets: [
        .executableTarget(
            name: "switchboard-soak",
            dependencies: [
                .product(name: "SwitchboardLibraries", package: root.lastPathComponent),
                .product(name: "SwitchboardTestSupport", package: root.lastPathComponent),
            ],
            path: "Sources"),
    ]
)
