internal import CDNSSD

/// What a dns_sd status code means (dns_sd.h's `kDNSServiceErr_*`), for log lines that say
/// what went wrong rather than guess. avahi's compat library answers `Unknown` when it
/// cannot reach its daemon over D-Bus (PLATFORM.md, "DNS-SD"), `NameConflict` when another
/// service on the network, or on this host, already holds the name.
struct DNSSDStatus: Sendable, Equatable, CustomStringConvertible {
    let code: DNSServiceErrorType

    var isNameConflict: Bool { code == kDNSServiceErr_NameConflict }

    var meaning: String {
        switch Int(code) {
        case kDNSServiceErr_NoError: "no error"
        case kDNSServiceErr_Unknown: "the mDNS daemon cannot be reached (is avahi-daemon running, with D-Bus?)"
        case kDNSServiceErr_NameConflict: "the name is taken on the network"
        case kDNSServiceErr_NoMemory: "the mDNS daemon is out of memory"
        case kDNSServiceErr_BadParam, kDNSServiceErr_Invalid: "the daemon refused a parameter (service type or name)"
        case kDNSServiceErr_BadReference, kDNSServiceErr_BadState: "the daemon dropped the registration"
        case kDNSServiceErr_Unsupported, kDNSServiceErr_Incompatible: "the mDNS library does not support this"
        case kDNSServiceErr_AlreadyRegistered: "the service is registered already"
        case kDNSServiceErr_Refused, kDNSServiceErr_NoAuth: "the daemon refused the request"
        default: "an mDNS error"
        }
    }

    var description: String { "\(meaning) (dns_sd \(code))" }

    /// The name to try after `name` lost a conflict, as Bonjour renames: "Name" becomes
    /// "Name (2)", "Name (2)" becomes "Name (3)" (mDNSResponder's IncrementLabelSuffix).
    static func alternative(to name: String) -> String {
        if name.hasSuffix(")"), let open = name.lastIndex(of: "("), open > name.startIndex,
           name[name.index(before: open)] == " ",
           let number = Int(name[name.index(after: open)..<name.index(before: name.endIndex)]), number >= 2 {
            return String(name[..<name.index(before: open)]) + " (\(number + 1))"
        }
        return name + " (2)"
    }
}
