// swift-tools-version: 6.1
// Settee: a CouchDB-compatible database server. Module graph and the rules
// behind it: ../shared/DESIGN.md and ../shared/LAYOUT.md.
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Settee",
    products: [
        .executable(name: "settee", targets: ["settee"]),
        .library(name: "SetteeStore", targets: ["SetteeStore"]),
        .library(name: "SetteeHTTP", targets: ["SetteeHTTP"]),
        // The embeddable database (`import Settee`): a façade over the modules below.
        .library(name: "Settee", targets: ["Settee"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        // `swift package generate-documentation` (make docs): a command plugin, nothing it builds ships.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // C system libraries: a module map and a shim for what Swift cannot import.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        // epoll and eventfd, which Glibc's Swift module map does not export.
        .systemLibrary(name: "CEpoll", path: "Sources/CEpoll"),
        .systemLibrary(name: "CLinux", path: "Sources/CLinux"),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CDNSSD", pkgConfig: "avahi-compat-libdns_sd",
                       providers: [.apt(["libavahi-compat-libdnssd-dev"])]),
        // QR codes for `settee pair` (Debian's libqrencode, as `qrencode -t UTF8` draws them).
        .systemLibrary(name: "CQREncode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),

        .systemLibrary(name: "CPCRE2", pkgConfig: "libpcre2-8", providers: [.apt(["libpcre2-dev"])]),
        // ICU's collator: CouchDB's view collation of strings (couch_ejson_compare.c).
        // A C target, not a module map: see its header for why.
        .target(name: "CICU", linkerSettings: [.linkedLibrary("icui18n"), .linkedLibrary("icuuc"),
                                               .linkedLibrary("icudata")]),
        .target(name: "SetteeJSON", dependencies: ["CPCRE2", "CICU"], swiftSettings: swiftSettings),
        // Loaded at run time (dlopen): no build dependency; see its shim.h.
        .systemLibrary(name: "CJavaScriptCore"),
        .target(name: "SetteeViews", dependencies: ["SetteeJSON", "CJavaScriptCore"], swiftSettings: swiftSettings),
        .target(
            name: "SetteeStore",
            dependencies: [
                "SetteeJSON", "CSQLite", "CZlib", "CLinux",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings),
        // CouchDB's document forms (JSON with `_` members, attachments, multipart)
        // to store updates and back: below the server, so the replicator can use them.
        .target(
            name: "SetteeDocuments",
            dependencies: ["SetteeStore", "SetteeJSON", "CLinux"],
            swiftSettings: swiftSettings),
        .target(
            name: "SetteeHTTP",
            dependencies: ["CEpoll", "COpenSSL", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings),
        .target(
            name: "SetteeServer",
            dependencies: [
                "SetteeHTTP", "SetteeStore", "SetteeJSON", "SetteeDocuments", "SetteeReplicator", "SetteeDiscovery",
                "SetteeViews",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings),
        // The CouchDB replication protocol: peers are a local store or a remote URL (libcurl).
        // Never imports SetteeHTTP or SetteeServer (DESIGN.md).
        .target(
            name: "SetteeReplicator",
            dependencies: [
                "SetteeStore", "SetteeJSON", "SetteeDocuments", "CCurl", "COpenSSL",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings),
        // DNS-SD: Settee's TXT profile, publishing and browsing. Knows nothing of databases
        // beyond names in a record (DESIGN.md).
        .target(name: "SetteeDiscovery", dependencies: ["CDNSSD", .product(name: "Logging", package: "swift-log")],
                swiftSettings: swiftSettings),
        // settee.ini parsing and mapping: a library so IntegrationTests can test it.
        .target(
            name: "SetteeConfig",
            dependencies: [
                "SetteeServer", "SetteeHTTP", "SetteeStore", "SetteeReplicator",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings),
        // The public façade for programs that embed Settee: opens a data directory, typed
        // documents, queries, live queries, replication, the listener. Owns no storage or
        // protocol code of its own (LAYOUT.md, "Next: the library").
        .target(
            name: "Settee",
            dependencies: [
                "SetteeServer", "SetteeConfig", "SetteeReplicator", "SetteeDocuments", "SetteeStore", "SetteeJSON",
                "SetteeHTTP", "SetteeDiscovery",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "settee",
            dependencies: [
                "SetteeConfig", "SetteeServer", "SetteeHTTP", "SetteeReplicator", "SetteeStore", "SetteeJSON",
                "SetteeDiscovery", "CQREncode", "Settee",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings),

        // Examples/PeerNotes: a terminal notes app that embeds the library and syncs with its
        // copies on the LAN (issue 43, item 3; the DocC tutorial builds it).
        .executableTarget(name: "peernotes", dependencies: ["Settee"], path: "Examples/PeerNotes",
                          swiftSettings: swiftSettings),

        // bench/library: the library in-process against the same work over its listener (issue 43, item 5).
        .executableTarget(name: "settee-library-bench", dependencies: ["Settee"], path: "bench/library",
                          swiftSettings: swiftSettings),

        .target(name: "SetteeTestSupport", dependencies: ["SetteeJSON"], path: "Tests/SetteeTestSupport",
                swiftSettings: swiftSettings),
        .testTarget(name: "SetteeJSONTests", dependencies: ["SetteeJSON"], swiftSettings: swiftSettings),
        .testTarget(name: "SetteeViewsTests", dependencies: ["SetteeViews", "SetteeJSON"], swiftSettings: swiftSettings),
        .testTarget(name: "SetteeStoreTests", dependencies: ["SetteeStore", "SetteeJSON", "SetteeTestSupport"],
                    swiftSettings: swiftSettings),
        .testTarget(name: "SetteeDocumentsTests",
                    dependencies: ["SetteeDocuments", "SetteeStore", "SetteeJSON", "SetteeTestSupport"],
                    swiftSettings: swiftSettings),
        .testTarget(name: "SetteeHTTPTests", dependencies: ["SetteeHTTP", "COpenSSL", "SetteeTestSupport"],
                    swiftSettings: swiftSettings),
        .testTarget(name: "SetteeServerTests",
                    dependencies: ["SetteeServer", "SetteeHTTP", "SetteeStore", "SetteeJSON", "SetteeReplicator",
                                   "SetteeDiscovery", "SetteeTestSupport"],
                    swiftSettings: swiftSettings),
        .testTarget(name: "SetteeReplicatorTests",
                    dependencies: ["SetteeReplicator", "SetteeStore", "SetteeDocuments", "SetteeJSON", "SetteeHTTP",
                                   "SetteeTestSupport", .product(name: "Crypto", package: "swift-crypto")],
                    swiftSettings: swiftSettings),
        .testTarget(name: "SetteeDiscoveryTests", dependencies: ["SetteeDiscovery", "CDNSSD"], swiftSettings: swiftSettings),
        // The public API only: imports nothing but `Settee` (issue 43, item 4).
        .testTarget(name: "SetteeLibraryTests", dependencies: ["Settee"], swiftSettings: swiftSettings),
        // PeerNotes' own logic (notes as lines, commands, arguments), without a data directory.
        .testTarget(name: "PeerNotesTests", dependencies: ["peernotes"], swiftSettings: swiftSettings),
        .testTarget(name: "IntegrationTests", dependencies: ["SetteeConfig", "SetteeServer", "SetteeHTTP", "SetteeStore", "SetteeJSON", "SetteeTestSupport"],
                    swiftSettings: swiftSettings),
    ]
)
