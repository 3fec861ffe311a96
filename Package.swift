// swift-tools-version:6.0
//
// Ripple: a reactivity runtime for Swift on a C11 dependency-graph engine.
//
// Layout (see STYLE.md): the C engine's sources are in Sources/CRipple and its
// whole public API is the top-level include/ripple.h, so the C target is rooted
// at the package directory and restricted to its sources. Tests/CRegressions
// holds plain C programs that scripts/test builds with sanitizers; it is not a
// SwiftPM target. Warnings-as-errors and sanitizer flags live in scripts/, not
// in unsafeFlags, so that other packages can depend on Ripple.
//
// Atomics (Sources/CRipple/sync.h): on Linux the engine uses Concurrency Kit's
// ck_pr (Debian's libck-dev); elsewhere, where no system ships Concurrency Kit
// (Apple platforms), it uses C11's <stdatomic.h> with the same orderings.
// `swift build -Xcc -DRIPPLE_SYNC_C11`, or RIPPLE_SYNC_C11=1 in the
// environment of `swift build`, selects the C11 layer on Linux too
// (scripts/test builds and tests both layers). ck_pr is header-only (inline
// functions and macros): no layer calls into libck, so no target links it and
// sync.h includes <ck_pr.h> from the compiler's include path (where libck-dev
// puts it; elsewhere, -Xcc -I<prefix>/include). There is no system-library
// target with `pkgConfig: "ck"`: SwiftPM adds the pkg-config Libs (-lck) of
// every system library in a product's dependencies to its link, whatever the
// sources use, so libck would be a NEEDED entry of every binary, and the
// manifest cannot see -Xcc to drop it.
//
// Products are what an app links: Ripple and RippleTesting, and the optional
// modules that bring a dependency the core must not carry (Foundation, GRDB):
// RipplePersistence, RippleSQLite, RippleUndoManager, RippleInspector. The
// demo, the benchmark and the inspector's sample are executable targets, which
// SwiftPM makes runnable in this package only (`swift run ripple-demo`,
// scripts/bench, scripts/inspector-check) and never shows to a package that
// depends on Ripple.
import PackageDescription

let syncC11 = Context.environment["RIPPLE_SYNC_C11"].map { !$0.isEmpty && $0 != "0" } ?? false

let package = Package(
    name: "Ripple",
    // Observation (ObservationRegistrar, withObservationTracking) is part of
    // the core module: it sets the floor (macOS 14, iOS 17, tvOS 17,
    // watchOS 10, visionOS 1), which also covers Duration and Clock (13 / 16).
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    products: [
        .library(name: "Ripple", targets: ["Ripple"]),
        .library(name: "RippleTesting", targets: ["RippleTesting"]),
        .library(name: "RipplePersistence", targets: ["RipplePersistence"]),
        .library(name: "RippleSQLite", targets: ["RippleSQLite"]),
        .library(name: "RippleUndoManager", targets: ["RippleUndoManager"]),
        .library(name: "RippleInspector", targets: ["RippleInspector"]),
    ],
    dependencies: [
        // SQLite for RippleSQLite only: SwiftPM builds GRDB for the targets that import it, so an app that uses
        // Ripple or RipplePersistence alone never compiles it.
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        .target(
            name: "CRipple",
            path: ".",
            sources: ["Sources/CRipple"],
            publicHeadersPath: "include",
            cSettings: syncC11 ? [.define("RIPPLE_SYNC_C11")] : []
        ),
        // The Swift module's C helpers: the per-thread evaluation record (a C11
        // _Thread_local), the once-published slot of a @Derived class property,
        // a forwarder to the Swift runtime's try-retain, and the engine's read
        // section with its ticket passed by value. Implementation details of
        // Ripple, not part of its C API.
        .target(
            name: "CRippleThreadState",
            dependencies: ["CRipple"],
            path: "Sources/CRippleThreadState"
        ),
        .target(
            name: "Ripple",
            dependencies: ["CRipple", "CRippleThreadState"],
            path: "Sources/Ripple"
        ),
        // The test store of Ripple's Store, reporting through Swift Testing: its own library so that apps
        // importing Ripple never link the Testing framework.
        .target(
            name: "RippleTesting",
            dependencies: ["Ripple"],
            path: "Sources/RippleTesting"
        ),
        // Persisted declared atoms (Foundation is allowed here, not in Ripple): files, in-memory storage, the
        // storage protocol.
        .target(
            name: "RipplePersistence",
            dependencies: ["Ripple"],
            path: "Sources/RipplePersistence"
        ),
        // The SQLite storage of RipplePersistence, on GRDB: its own module, so that only its users build GRDB.
        .target(
            name: "RippleSQLite",
            dependencies: ["RipplePersistence", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Sources/RippleSQLite"
        ),
        // The bridge from an UndoHistory to Foundation's UndoManager: its own library, so that the core module
        // does not depend on Foundation.
        .target(
            name: "RippleUndoManager",
            dependencies: ["Ripple"],
            path: "Sources/RippleUndoManager"
        ),
        // The child process of the persistence tests: writes growing values until killed, or increments a
        // SQLite-stored counter, so that the tests can kill it or race two of them.
        .executableTarget(
            name: "RipplePersistenceProbe",
            dependencies: ["RipplePersistence", "RippleSQLite"],
            path: "Sources/RipplePersistenceProbe"
        ),
        // The inspector page (one self-contained HTML file): its own library because it writes the file with
        // Foundation, which the core module does not import.
        .target(
            name: "RippleInspector",
            dependencies: ["Ripple"],
            path: "Sources/RippleInspector"
        ),
        // The sessions scripts/inspector-check opens in a browser: a known one, and a 10,000-write one to time.
        .executableTarget(
            name: "ripple-inspector-sample",
            dependencies: ["Ripple", "RippleInspector"],
            path: "Sources/RippleInspectorSample"
        ),
        .executableTarget(
            name: "ripple-demo",
            dependencies: ["Ripple", "RippleInspector"],
            path: "Sources/RippleDemo"
        ),
        // The benchmark (scripts/bench, the ripple-bench executable): the shapes
        // against the C API and the floor (RippleBenchC), and through the Swift
        // API and Observation (RippleBenchShapes, which the tests reuse). The
        // two libraries are internal: not products.
        .target(
            name: "RippleBenchC",
            dependencies: ["CRipple"],
            path: "Sources/RippleBenchC",
            linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]
        ),
        .target(
            name: "RippleBenchShapes",
            dependencies: ["Ripple", "RippleBenchC"],
            path: "Sources/RippleBenchShapes"
        ),
        .executableTarget(
            name: "ripple-bench",
            dependencies: ["RippleBenchShapes", "RippleBenchC", "RipplePersistence", "RippleSQLite"],
            path: "Sources/RippleBench"
        ),
        .testTarget(
            name: "RippleTests",
            dependencies: ["Ripple", "RippleTesting", "RippleBenchShapes", "RippleUndoManager", "RippleInspector"],
            path: "Tests/RippleTests"
        ),
        .testTarget(
            name: "RipplePersistenceTests",
            dependencies: ["Ripple", "RipplePersistence", "RippleSQLite", "RipplePersistenceProbe"],
            path: "Tests/RipplePersistenceTests"
        ),
    ],
    swiftLanguageModes: [.v6],
    cLanguageStandard: .c11
)
