// swift-tools-version:6.0
// TouchBridge: evdev touchscreens -> map gestures -> map camera -> DRM/KMS dumb buffers.
// Data flows one way through the targets below; see docs/ and README.md.
import PackageDescription

let package = Package(
    name: "TouchBridge",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "TouchBridge", targets: ["TouchBridge"]),
        .executable(name: "touchbridge", targets: ["touchbridge"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
    ],
    targets: [
        // Thin system-library targets: one per C library, pkg-config name and Debian provider.
        .systemLibrary(name: "CEvdev", path: "Sources/CEvdev", pkgConfig: "libevdev",
                       providers: [.apt(["libevdev-dev"])]),
        .systemLibrary(name: "CUdev", path: "Sources/CUdev", pkgConfig: "libudev",
                       providers: [.apt(["libudev-dev"])]),
        .systemLibrary(name: "CDRM", path: "Sources/CDRM", pkgConfig: "libdrm",
                       providers: [.apt(["libdrm-dev"])]),
        .systemLibrary(name: "CCairo", path: "Sources/CCairo", pkgConfig: "pangocairo",
                       providers: [.apt(["libcairo2-dev", "libpango1.0-dev"])]),
        .systemLibrary(name: "CSys", path: "Sources/CSys"),
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CJPEG", path: "Sources/CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg62-turbo-dev"])]),
        .systemLibrary(name: "CWebP", path: "Sources/CWebP", pkgConfig: "libwebp", providers: [.apt(["libwebp-dev"])]),
        .systemLibrary(name: "CPNG", path: "Sources/CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),

        // Pure stages: no I/O, no clocks.
        .target(name: "TouchCore"),
        .target(name: "Gestures", dependencies: ["TouchCore"]),
        .target(name: "MapEngine", dependencies: ["Gestures"]),

        // The one platform layer: owned descriptors, EINTR, typed errors, the clock, the event loop.
        .target(name: "Platform", dependencies: ["CSys", .product(name: "SystemPackage", package: "swift-system")]),

        // Edges: devices, drawing, display.
        .target(name: "TouchDevices", dependencies: ["TouchCore", "Platform", "CEvdev", "CUdev", .product(name: "SystemPackage", package: "swift-system")]),
        // Tile sets behind one seam (MBTiles, PMTiles), and vector tiles with their style.
        .target(name: "TileSources", dependencies: ["CSQLite", "CZlib", "Platform", .product(name: "SystemPackage", package: "swift-system")]),
        .target(name: "VectorTiles", dependencies: [.product(name: "SwiftProtobuf", package: "swift-protobuf")],
                exclude: ["Proto"], resources: [.copy("Resources")]),
        .target(name: "Rendering", dependencies: ["MapEngine", "Platform", "CCairo", "TileSources", "VectorTiles", "CJPEG", "CWebP", "CPNG"],
                resources: [.copy("Resources")]),
        .target(name: "Display", dependencies: ["TouchCore", "Platform", "CDRM", "CCairo", .product(name: "SystemPackage", package: "swift-system")]),

        // The façade an app uses, and the executable that is a thin user of it.
        .target(name: "TouchBridge", dependencies: [
            "TouchCore", "TouchDevices", "Gestures", "MapEngine", "Rendering", "Display", "Platform", "CCairo", "VectorTiles", "TileSources",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Histogram", package: "hdrhistogram-swift"),
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // The kiosk: the composition root around a MapView that `touchbridge run` is (its TOML file,
        // the control socket, systemd and journald, the event stream writer, stats, blanking and the
        // attract tour, reload).
        .target(name: "Kiosk", dependencies: [
            "TouchBridge", "TouchCore", "TouchDevices", "Gestures", "MapEngine", "Rendering", "Display", "Platform", "VectorTiles", "TileSources",
            .product(name: "TOMLKit", package: "TOMLKit"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // Bench, calibration and tune tools: the executable's, not in the library product.
        .target(name: "KioskTools", dependencies: [
            "TouchBridge", "Kiosk", "TouchCore", "TouchDevices", "Gestures", "MapEngine", "Rendering", "Display", "Platform", "CCairo",
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        .executableTarget(name: "touchbridge", dependencies: [
            "TouchBridge", "Kiosk", "KioskTools", "TouchCore", "TouchDevices", "MapEngine", "Rendering", "Display", "VectorTiles",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        // The README's "As a library" example, compiled against the SDK product alone (ExampleTests
        // checks the README shows this very file; `make unit-test` builds it).
        .executableTarget(name: "hello-map", dependencies: ["TouchBridge"], path: "Examples/HelloMap"),

        .testTarget(name: "TouchCoreTests", dependencies: ["TouchCore"],
                    resources: [.copy("Fixtures")]),
        .testTarget(name: "TouchDevicesTests", dependencies: ["TouchDevices"]),
        .testTarget(name: "GesturesTests", dependencies: ["Gestures", "TouchCore"]),
        .testTarget(name: "MapEngineTests", dependencies: ["MapEngine"]),
        .testTarget(name: "StreetMapTests", dependencies: ["Rendering", "TileSources", "VectorTiles", "MapEngine", "TouchCore", "CSQLite"],
                    resources: [.copy("Fixtures")]),
        .testTarget(name: "RenderingTests", dependencies: ["Rendering", "TileSources", "CSQLite", "Platform"],
                    resources: [.copy("Fixtures")]),
        .testTarget(name: "DisplayTests", dependencies: ["Display", "TouchCore"]),
        .testTarget(name: "TouchBridgeTests", dependencies: ["TouchBridge", "Kiosk", "KioskTools"]),
        .testTarget(name: "PlatformTests", dependencies: ["Platform", .product(name: "SystemPackage", package: "swift-system")]),
    ]
)

// Fuzz harnesses (Fuzz/README.md): libFuzzer targets built only by `make fuzz` and `make fuzz-ci`
// (TOUCHBRIDGE_FUZZ=1, --sanitize=fuzzer, scratch path .build-fuzz). A new target is its folder
// Fuzz/fuzz-NAME plus one line here.
if Context.environment["TOUCHBRIDGE_FUZZ"] != nil {
    let fuzzTargets: [(name: String, dependencies: [Target.Dependency])] = [
        ("fuzz-evemu", ["TouchCore"]),
        ("fuzz-pipeline", ["TouchCore", "Gestures", "MapEngine"]),
        ("fuzz-config", ["TouchBridge", "Kiosk"]),
        ("fuzz-mbtiles", ["Rendering", "TileSources", "MapEngine"]),
        ("fuzz-mvt", ["Rendering", "TileSources", "VectorTiles", "MapEngine"]),
        ("fuzz-pmtiles", ["TileSources"]),
        ("fuzz-geojson", ["MapEngine"]),
        ("fuzz-control", ["TouchBridge", "Kiosk"]),
        ("fuzz-style", ["VectorTiles"]),
        ("fuzz-street", ["Rendering", "TileSources", "VectorTiles", "MapEngine"]),
    ]
    for t in fuzzTargets {
        package.targets.append(.executableTarget(name: t.name, dependencies: t.dependencies, path: "Fuzz/\(t.name)",
                                                 swiftSettings: [.unsafeFlags(["-parse-as-library"])]))
    }
}
