// swift-tools-version:6.0
//
// The app the DocC tutorial "Build a reading list" builds: the model (ReadingList) and its tests build everywhere;
// the SwiftUI views (ReadingListViews) compile only where SwiftUI exists. Ripple is the repository this example
// sits in.
import PackageDescription

let package = Package(
    name: "ReadingList",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    products: [
        .library(name: "ReadingList", targets: ["ReadingList"]),
        .library(name: "ReadingListViews", targets: ["ReadingListViews"]),
    ],
    dependencies: [.package(name: "Ripple", path: "../..")],
    targets: [
        .target(name: "ReadingList", dependencies: [.product(name: "Ripple", package: "Ripple")]),
        .target(name: "ReadingListViews", dependencies: ["ReadingList", .product(name: "Ripple", package: "Ripple")]),
        .testTarget(
            name: "ReadingListTests",
            dependencies: [
                "ReadingList", .product(name: "Ripple", package: "Ripple"),
                .product(name: "RippleTesting", package: "Ripple"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
