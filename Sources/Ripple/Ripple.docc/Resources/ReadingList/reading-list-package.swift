// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "ReadingList",
    platforms: [.macOS(.v14), .iOS(.v17)],
    dependencies: [
        .package(url: "https://github.com/ripple-swift/Ripple.git", from: "1.0.0"),
    ],
    targets: [
        .target(name: "ReadingList", dependencies: [.product(name: "Ripple", package: "Ripple")]),
        .testTarget(
            name: "ReadingListTests",
            dependencies: [
                "ReadingList", .product(name: "Ripple", package: "Ripple"),
                .product(name: "RippleTesting", package: "Ripple"),
            ]
        ),
    ]
)
