// swift-tools-version:6.0
import PackageDescription

/// Switchboard: a self-hosted IM server, a shared client core and a YAML bot gateway.
///
/// Dependencies are the toolchain and Debian's C libraries only; each C library is
/// wrapped once by a system-library target at the bottom of the graph.
let package = Package(
    name: "Switchboard",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "switchboard", targets: ["switchboard"]),
        .library(name: "IMClient", targets: ["IMClient"]),
        // For the package in Fuzz/, which builds these libraries with its own flags
        // (libFuzzer, AddressSanitizer) in its own build folder.
        .library(name: "SwitchboardLibraries",
                 targets: ["IMProtocol", "IMServer", "IMBots", "Templates", "YAMLCoding", "IMClient", "HTTPServer",
                           "Logging", "SwitchboardCrypto"]),
    ],
    targets: [
        // MARK: C libraries (the only code that sees C headers)
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd",
                       providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl",
                       providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1",
                       providers: [.apt(["libyaml-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto",
                       providers: [.apt(["libssl-dev", "libargon2-dev"])]),
        .systemLibrary(name: "CPostgres", pkgConfig: "libpq",
                       providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CPCRE2", pkgConfig: "libpcre2-8",
                       providers: [.apt(["libpcre2-dev"])]),
        .systemLibrary(name: "CSixel", pkgConfig: "libsixel", providers: [.apt(["libsixel-dev"])]),

        // MARK: Libraries
        .target(name: "IMProtocol"),
        .target(name: "Logging"),
        .target(name: "Lifecycle", dependencies: ["Logging"]),
        .target(name: "SwitchboardCrypto", dependencies: ["CCrypto"]),
        .target(name: "HTTPServer", dependencies: ["CMicroHTTPD", "Lifecycle"]),
        .target(name: "IMStore", dependencies: ["IMProtocol", "CSQLite", "CPostgres", "Lifecycle"]),
        // The web client (app/) and the runner's operator console (console/): HTML, CSS and
        // JavaScript kept in Web/, copied beside the binary as its resources and served
        // from memory (docs/web.md).
        .target(name: "WebAssets", dependencies: ["HTTPServer", "SwitchboardCrypto"], path: "Web",
                exclude: ["README.md"], resources: [.copy("app"), .copy("console")]),
        // IMClient for its libcurl transport only: the Telegram dialect posts updates to bots' webhooks.
        .target(name: "IMServer",
                dependencies: ["IMProtocol", "IMStore", "HTTPServer", "IMClient", "SwitchboardCrypto", "Logging", "Lifecycle",
                               "WebAssets"]),
        .target(name: "IMClient", dependencies: ["IMProtocol", "CCurl", "Logging", "SwitchboardCrypto"]),
        // The Matrix client-server API on the client core's transport, errors and retry loop.
        .target(name: "MatrixClient", dependencies: ["IMClient", "IMProtocol"]),
        .target(name: "YAMLCoding", dependencies: ["CYAML"]),
        .target(name: "Templates"),
        .target(name: "IMChat", dependencies: ["IMClient", "IMProtocol", "CSixel"]),
        .target(name: "IMBots",
                dependencies: ["IMClient", "MatrixClient", "YAMLCoding", "Templates", "HTTPServer",
                               "SwitchboardCrypto", "Logging", "Lifecycle", "CPCRE2", "WebAssets"]),
        // Linked with lld and packed relative relocations (DT_RELR, glibc 2.36+): the
        // 13,600 relative relocations take 4 KiB instead of 327 KiB, which the loader
        // reads at every start and which then stay resident; the executable's resident
        // pages in a runner are about 0.5 MiB fewer (BENCHMARKS.md, bot runner).
        .executableTarget(name: "switchboard",
                          dependencies: ["IMServer", "IMStore", "IMBots", "IMChat", "IMClient", "YAMLCoding", "Logging", "Lifecycle"],
                          linkerSettings: [.unsafeFlags(["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"],
                                                        .when(platforms: [.linux]))]),

        // MARK: Tests
        .target(name: "TestSupport", dependencies: ["IMServer", "IMClient", "Lifecycle", "PostgresTestSupport"],
                path: "Tests/TestSupport"),
        .testTarget(name: "IMProtocolTests", dependencies: ["IMProtocol"]),
        .testTarget(name: "LifecycleTests", dependencies: ["Lifecycle", "Logging"]),
        .testTarget(name: "LoggingTests", dependencies: ["Logging"]),
        .testTarget(name: "SwitchboardCryptoTests", dependencies: ["SwitchboardCrypto"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "TestSupport", "Lifecycle"]),
        .target(name: "PostgresTestSupport", dependencies: ["IMStore"], path: "Tests/PostgresTestSupport"),
        .testTarget(name: "IMStoreTests", dependencies: ["IMStore", "PostgresTestSupport", "TestSupport", "Lifecycle"],
                    exclude: ["Fixtures"]),
        .testTarget(name: "IMServerTests", dependencies: ["IMServer", "TestSupport", "PostgresTestSupport", "Lifecycle"]),
        .testTarget(name: "IMClientTests", dependencies: ["IMClient", "IMServer", "TestSupport", "Lifecycle"]),
        // Against a real Synapse from the Makefile's venv (`make matrix-venv`), started once per run.
        .testTarget(name: "MatrixTests",
                    dependencies: ["MatrixClient", "IMBots", "IMClient", "IMProtocol", "TestSupport", "PostgresTestSupport",
                                   "SwitchboardCrypto", "Lifecycle", "Logging"]),
        .testTarget(name: "YAMLCodingTests", dependencies: ["YAMLCoding"]),
        .testTarget(name: "TemplatesTests", dependencies: ["Templates"]),
        .testTarget(name: "IMBotsTests",
                    dependencies: ["IMBots", "MatrixClient", "IMServer", "TestSupport", "HTTPServer", "Lifecycle"],
                    exclude: ["Fixtures"]),
        .testTarget(name: "IMChatTests", dependencies: ["IMChat", "IMClient", "IMServer", "TestSupport"],
                    exclude: ["Snapshots"]),
        .testTarget(name: "TelegramTests", dependencies: ["IMServer", "IMClient", "HTTPServer", "TestSupport", "Lifecycle"],
                    exclude: ["Bots"]),
        // The web client and the operator console in a real browser (headless Chromium
        // driven by Selenium scripts in Tests/WebTests/Browser), against `switchboard up`.
        .testTarget(name: "WebTests", dependencies: ["WebAssets", "HTTPServer", "IMProtocol", "IMBots", "IMClient",
                                                   "Lifecycle", "TestSupport"],
                    exclude: ["Browser"]),
        .testTarget(name: "DeploymentTests", dependencies: ["IMServer", "HTTPServer", "IMProtocol", "TestSupport"]),
        .testTarget(name: "SwitchboardCLITests", dependencies: ["switchboard", "IMServer", "IMStore", "TestSupport", "Lifecycle"]),

        // MARK: Reliability harness (`make soak`; RELIABILITY.md): built with the rest, run apart
        .executableTarget(name: "switchboard-soak", dependencies: ["IMClient", "IMProtocol", "TestSupport", "PostgresTestSupport"],
                          path: "Soak/Sources"),

        // MARK: Benchmarks (`make bench`)
        .target(name: "BenchSupport", dependencies: ["IMClient", "IMProtocol"],
                path: "Benchmarks/BenchSupport"),
        .executableTarget(name: "ClientBench",
                          dependencies: ["BenchSupport", "IMClient", "IMProtocol"],
                          path: "Benchmarks/ClientBench"),
        .executableTarget(name: "BotBench",
                          dependencies: ["BenchSupport", "IMClient", "IMProtocol"],
                          path: "Benchmarks/BotBench"),
        .executableTarget(name: "AlertBench",
                          dependencies: ["BenchSupport", "IMClient", "IMProtocol"],
                          path: "Benchmarks/AlertBench"),
        .executableTarget(name: "ServerBench",
                          dependencies: ["BenchSupport", "IMClient", "IMProtocol", "PostgresTestSupport"],
                          path: "Benchmarks/ServerBench"),
        .executableTarget(name: "RulesBench", dependencies: ["IMBots"], path: "Benchmarks/RulesBench"),
        .executableTarget(name: "NotifyBench",
                          dependencies: ["BenchSupport", "IMStore", "PostgresTestSupport", "Lifecycle"],
                          path: "Benchmarks/NotifyBench"),
        .executableTarget(name: "StoreBench", dependencies: ["BenchSupport", "CSQLite", "IMStore", "IMProtocol"],
                          path: "Benchmarks/StoreBench"),
        .executableTarget(name: "FeedBench",
                          dependencies: ["BenchSupport", "CMicroHTTPD", "IMClient", "IMProtocol"],
                          path: "Benchmarks/FeedBench"),
    ]
)
