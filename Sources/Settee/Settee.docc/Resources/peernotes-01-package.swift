// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "PeerNotes",
    dependencies: [
        .package(path: "../settee"),
    ],
    targets: [
        .executableTarget(name: "peernotes", dependencies: [.product(name: "Settee", package: "settee")]),
    ]
)
