// swift-tools-version:6.0
//
// A search screen with async loading and cancellation: the model (SearchModel) and its tests build everywhere;
// the SwiftUI view (SearchViews) compiles only where SwiftUI exists. Ripple is the repository this example sits in.
import PackageDescription

let package = Package(
    name: "Search",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    products: [
        .library(name: "SearchModel", targets: ["SearchModel"]),
        .library(name: "SearchViews", targets: ["SearchViews"]),
    ],
    dependencies: [.package(name: "Ripple", path: "../..")],
    targets: [
        .target(name: "SearchModel", dependencies: [.product(name: "Ripple", package: "Ripple")]),
        .target(name: "SearchViews", dependencies: ["SearchModel", .product(name: "Ripple", package: "Ripple")]),
        .testTarget(
            name: "SearchModelTests",
            dependencies: ["SearchModel", .product(name: "Ripple", package: "Ripple")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
