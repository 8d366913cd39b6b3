// swift-tools-version:6.0
import PackageDescription

/// Tabdeck: a terminal workspace for tables whose tabs are plugins.
///
/// Targets are split by responsibility (see docs/ARCHITECTURE.md):
/// protocol (messages + JSON-lines codec), core (pure state + update),
/// store (GRDB), supervisor (plugin processes), terminal (screen + readline),
/// app (runtime wiring) and the `tabdeck` executable.
let package = Package(
    name: "Tabdeck",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "tabdeck", targets: ["tabdeck"]),
        .executable(name: "tabdeck-csv", targets: ["tabdeck-csv"]),
        .executable(name: "tabdeck-sqlite", targets: ["tabdeck-sqlite"]),
        .executable(name: "tabdeck-postgres", targets: ["tabdeck-postgres"]),
        .executable(name: "tabdeck-pipe", targets: ["tabdeck-pipe"]),
        .executable(name: "tabdeck-bench", targets: ["TabdeckBench"]),
        .library(name: "TabdeckPluginKit", targets: ["TabdeckPluginKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    ],
    targets: [
        .target(name: "TabdeckProtocol"),
        .target(name: "TabdeckTime"),
        .target(name: "SeededRandom"),
        .target(name: "TabdeckCore", dependencies: ["TabdeckProtocol"]),
        .target(name: "TabdeckSources"),
        .target(name: "TabdeckStore", dependencies: [
            "TabdeckCore",
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        .target(name: "TabdeckSupervisor", dependencies: [
            "TabdeckProtocol", "TabdeckTime", .product(name: "Logging", package: "swift-log"),
        ]),
        .systemLibrary(name: "CReadline", path: "Sources/CReadline"),
        .target(name: "TabdeckTerminal", dependencies: ["TabdeckCore"]),
        .target(name: "TabdeckTerminalIO", dependencies: ["CReadline", "TabdeckCore", "TabdeckTerminal"]),
        .target(name: "TabdeckSpool", dependencies: [
            "TabdeckProtocol", "TabdeckSupervisor", "TabdeckPluginKit",
        ]),
        .target(name: "TabdeckConformance", dependencies: ["TabdeckProtocol", "TabdeckSupervisor", "TabdeckTime"]),
        .target(name: "TabdeckApp", dependencies: [
            "TabdeckProtocol", "TabdeckCore", "TabdeckStore", "TabdeckSupervisor", "TabdeckTerminal", "TabdeckTerminalIO",
            "TabdeckSpool", "TabdeckTime", "TabdeckSources", .product(name: "Logging", package: "swift-log"),
        ]),
        .executableTarget(name: "tabdeck", dependencies: [
            "TabdeckApp", "TabdeckSupervisor", "TabdeckConformance", "TabdeckTerminalIO", "TabdeckTime",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .target(name: "TabdeckPluginKit", dependencies: ["TabdeckProtocol", "TabdeckTime"]),
        .target(name: "CSVTable", dependencies: ["TabdeckProtocol"], path: "Plugins/csv/CSVTable"),
        .executableTarget(name: "tabdeck-csv", dependencies: ["CSVTable", "TabdeckPluginKit"], path: "Plugins/csv/Main"),
        .target(name: "SQLiteBrowser", dependencies: [
            "TabdeckPluginKit", .product(name: "GRDB", package: "GRDB.swift"),
        ], path: "Plugins/sqlite/SQLiteBrowser"),
        .executableTarget(name: "tabdeck-sqlite", dependencies: ["SQLiteBrowser", "TabdeckPluginKit"], path: "Plugins/sqlite/Main"),
        .target(name: "PostgresBrowser", dependencies: [
            "TabdeckPluginKit", .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"), .product(name: "Logging", package: "swift-log"),
        ], path: "Plugins/postgres/PostgresBrowser"),
        .executableTarget(name: "tabdeck-postgres", dependencies: ["PostgresBrowser", "TabdeckPluginKit"], path: "Plugins/postgres/Main"),
        .target(name: "PipeTable", dependencies: ["TabdeckProtocol"], path: "Plugins/pipe/PipeTable"),
        .executableTarget(name: "tabdeck-pipe", dependencies: ["PipeTable", "TabdeckPluginKit", "TabdeckProtocol"], path: "Plugins/pipe/Main"),
        .executableTarget(name: "tabdeck-kit-example", dependencies: ["TabdeckPluginKit", "TabdeckProtocol"], path: "Plugins/kit-example"),
        .target(name: "TabdeckFuzzTargets", dependencies: [
            "TabdeckProtocol", "TabdeckCore", "TabdeckTerminal", "TabdeckStore", "TabdeckSpool", "CSVTable", "PipeTable",
            "TabdeckSources",
        ]),
        .executableTarget(name: "tabdeck-fuzz", dependencies: ["TabdeckFuzzTargets"]),
        .executableTarget(name: "TabdeckBench", dependencies: [
            "TabdeckProtocol", "TabdeckSupervisor", "TabdeckPluginKit", "TabdeckTime", "SeededRandom",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        .testTarget(name: "TabdeckTimeTests", dependencies: ["TabdeckTime"]),
        .testTarget(name: "TabdeckProtocolTests", dependencies: ["TabdeckProtocol", "SeededRandom"]),
        .testTarget(name: "TabdeckCoreTests", dependencies: ["TabdeckCore", "SeededRandom"]),
        .testTarget(name: "TabdeckStoreTests", dependencies: ["TabdeckStore"]),
        .testTarget(name: "TabdeckSourcesTests", dependencies: ["TabdeckSources"]),
        .testTarget(name: "TabdeckSupervisorTests", dependencies: ["TabdeckSupervisor", "TabdeckTime"]),
        .testTarget(name: "TabdeckTerminalTests", dependencies: ["TabdeckTerminal", "TabdeckTerminalIO"]),
        .testTarget(name: "TabdeckAppTests", dependencies: ["TabdeckApp", "TabdeckTime"]),
        .testTarget(name: "TabdeckPluginKitTests", dependencies: ["TabdeckPluginKit"]),
        .testTarget(name: "PipeTableTests", dependencies: ["PipeTable", "TabdeckProtocol"]),
        .testTarget(name: "CSVTableTests", dependencies: ["CSVTable", "SeededRandom", "TabdeckPluginKit", "TabdeckProtocol"]),
        .testTarget(name: "SQLiteBrowserTests", dependencies: ["SQLiteBrowser", "SeededRandom"]),
        .testTarget(name: "PostgresBrowserTests", dependencies: ["PostgresBrowser", "TabdeckPluginKit"]),
        .testTarget(name: "TabdeckSpoolTests", dependencies: ["TabdeckSpool", "TabdeckPluginKit", "SeededRandom"]),
        .testTarget(name: "TabdeckConformanceTests", dependencies: ["TabdeckConformance", "TabdeckTime"]),
        .testTarget(name: "TabdeckFuzzTests", dependencies: ["TabdeckFuzzTargets"]),
        .testTarget(name: "EndToEndTests", dependencies: []),
    ],
    swiftLanguageModes: [.v6]
)
