// swift-tools-version:6.0
//
// A todo list on Ripple's declared state: the model (TodoListModel) and its tests build everywhere; the SwiftUI
// views (TodoListViews) compile only where SwiftUI exists. Ripple is the repository this example sits in.
import PackageDescription

let package = Package(
    name: "TodoList",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    products: [
        .library(name: "TodoListModel", targets: ["TodoListModel"]),
        .library(name: "TodoListViews", targets: ["TodoListViews"]),
    ],
    dependencies: [.package(name: "Ripple", path: "../..")],
    targets: [
        .target(name: "TodoListModel", dependencies: [.product(name: "Ripple", package: "Ripple")]),
        .target(name: "TodoListViews", dependencies: ["TodoListModel", .product(name: "Ripple", package: "Ripple")]),
        .testTarget(
            name: "TodoListModelTests",
            dependencies: ["TodoListModel", .product(name: "Ripple", package: "Ripple")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
