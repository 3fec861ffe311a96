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
import PackageDescription

let package = Package(
    name: "Ripple",
    products: [
        .library(name: "Ripple", targets: ["Ripple"]),
        .library(name: "RippleTesting", targets: ["RippleTesting"]),
        .library(name: "RippleInspector", targets: ["RippleInspector"]),
        .executable(name: "ripple-demo", targets: ["RippleDemo"]),
        .executable(name: "ripple-bench", targets: ["RippleBench"]),
        .executable(name: "ripple-inspector-sample", targets: ["RippleInspectorSample"]),
    ],
    targets: [
        .target(
            name: "CRipple",
            path: ".",
            sources: ["Sources/CRipple"],
            publicHeadersPath: "include",
            linkerSettings: [.linkedLibrary("ck")]
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
        // The inspector page (one self-contained HTML file): its own library because it writes the file with
        // Foundation, which the core module does not import.
        .target(
            name: "RippleInspector",
            dependencies: ["Ripple"],
            path: "Sources/RippleInspector"
        ),
        // The sessions scripts/inspector-check opens in a browser: a known one, and a 10,000-write one to time.
        .executableTarget(
            name: "RippleInspectorSample",
            dependencies: ["Ripple", "RippleInspector"],
            path: "Sources/RippleInspectorSample"
        ),
        .executableTarget(
            name: "RippleDemo",
            dependencies: ["Ripple", "RippleInspector"],
            path: "Sources/RippleDemo"
        ),
        // The benchmark (scripts/bench, the ripple-bench product): the shapes
        // against the C API and the floor (RippleBenchC), and through the Swift
        // API and Observation (RippleBenchShapes, which the tests reuse). The
        // two libraries are internal: not products.
        .target(
            name: "RippleBenchC",
            dependencies: ["CRipple"],
            path: "Sources/RippleBenchC",
            linkerSettings: [.linkedLibrary("m")]
        ),
        .target(
            name: "RippleBenchShapes",
            dependencies: ["Ripple", "RippleBenchC"],
            path: "Sources/RippleBenchShapes"
        ),
        .executableTarget(
            name: "RippleBench",
            dependencies: ["RippleBenchShapes", "RippleBenchC"],
            path: "Sources/RippleBench"
        ),
        .testTarget(
            name: "RippleTests",
            dependencies: ["Ripple", "RippleTesting", "RippleBenchShapes", "RippleInspector"],
            path: "Tests/RippleTests"
        ),
    ],
    swiftLanguageModes: [.v6],
    cLanguageStandard: .c11
)
