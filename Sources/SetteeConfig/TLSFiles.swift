/*
 Where the HTTPS certificate and key come from: `[ssl] cert_file`/`key_file` when
 both are set; otherwise `<data dir>/tls/certificate.pem` and `key.pem`, made on the
 first start (ECDSA P-256, self-signed, the host's names and addresses as subject
 alternative names) and kept — never regenerated on restart, because peers pin the
 certificate's fingerprint. Both files are mode 0600 in a 0700 directory.
*/
internal import FoundationEssentials
internal import Glibc
public import SetteeHTTP

public enum TLSFiles {
    public static let directoryName = "tls"
    public static let certificateName = "certificate.pem"
    public static let keyName = "key.pem"

    /// The certificate and key files to serve with, generating them when needed.
    /// - Returns: the paths and whether they were made now.
    /// - Throws: `ConfigError.tls` (only one of the two files set, or writing failed).
    public static func resolve(_ settings: TLSSettings, dataDirectory: String,
                               bindAddresses: [String]) throws(ConfigError) -> (certificate: String, key: String, created: Bool) {
        switch (settings.certificateFile, settings.keyFile) {
        case (let certificate?, let key?): return (certificate, key, false)
        case (nil, nil): break
        default: throw .tls("[ssl] cert_file and key_file go together: set both, or neither for a generated pair")
        }
        let directory = joinedPath(dataDirectory, directoryName)
        let certificate = joinedPath(directory, certificateName)
        let key = joinedPath(directory, keyName)
        let manager = FileManager.default
        if manager.fileExists(atPath: certificate) && manager.fileExists(atPath: key) { return (certificate, key, false) }
        let host = ProcessInfo.processInfo.hostName
        let names = Array(Set([host, "localhost"].filter { !$0.isEmpty })).sorted()
        let addresses = Array(Set(localAddresses() + bindAddresses.filter(isSpecificAddress) + ["127.0.0.1", "::1"])).sorted()
        do {
            let pair = try SelfSignedCertificate.generate(commonName: host.isEmpty ? "settee" : host,
                                                          dnsNames: names, ipAddresses: addresses)
            try manager.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                        attributes: [.posixPermissions: 0o700])
            // The key first: a certificate without its key would be kept and never work.
            try write(pair.key, to: key)
            try write(pair.certificate, to: certificate)
        } catch let error as TLSError {
            throw .tls(error.description)
        } catch {
            throw .unwritable(path: directory, reason: systemReason(error))
        }
        return (certificate, key, true)
    }

    /// Writes `text` to `path` with mode 0600 from the start (never briefly world-readable).
    static func write(_ text: String, to path: String) throws {
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == bytes.count, synced, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }

    /// A bind address that names one interface (not `0.0.0.0`, `::` or a host name).
    static func isSpecificAddress(_ address: String) -> Bool {
        address != "0.0.0.0" && address != "::" && (address.contains(":") || address.first?.isNumber == true)
    }

    /// The machine's interface addresses (IPv4 and global IPv6), for the certificate's names.
    static func localAddresses() -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var addresses: [String] = []
        var cursor = list
        while let entry = cursor?.pointee {
            defer { cursor = entry.ifa_next }
            guard let address = entry.ifa_addr else { continue }
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            let family = Int32(address.pointee.sa_family)
            guard family == AF_INET || family == AF_INET6 else { continue }
            let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
            guard getnameinfo(address, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else { continue }
            let text = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !text.contains("%") { addresses.append(text) }  // link-local scopes mean nothing elsewhere
        }
        return addresses
    }
}
