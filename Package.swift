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
        .executable(name: "ripple-demo", targets: ["RippleDemo"]),
    ],
    targets: [
        .target(
            name: "CRipple",
            path: ".",
            sources: ["Sources/CRipple"],
            publicHeadersPath: "include",
            linkerSettings: [.linkedLibrary("ck")]
        ),
        .target(
            name: "Ripple",
            dependencies: ["CRipple"],
            path: "Sources/Ripple"
        ),
        .executableTarget(
            name: "RippleDemo",
            dependencies: ["Ripple"],
            path: "Sources/RippleDemo"
        ),
        .testTarget(
            name: "RippleTests",
            dependencies: ["Ripple"],
            path: "Tests/RippleTests"
        ),
    ],
    swiftLanguageModes: [.v6],
    cLanguageStandard: .c11
)
