@testable import SetteeDiscovery
import CDNSSD
import Testing

/// `DNSSDStatus`: dns_sd errors said by their meaning, and Bonjour's renaming after a conflict.
@Suite struct DNSSDStatusTests {
    @Test func renamesAsBonjourDoes() {
        #expect(DNSSDStatus.alternative(to: "Settee on raspberrypi") == "Settee on raspberrypi (2)")
        #expect(DNSSDStatus.alternative(to: "Settee on raspberrypi (2)") == "Settee on raspberrypi (3)")
        #expect(DNSSDStatus.alternative(to: "Settee on raspberrypi (9)") == "Settee on raspberrypi (10)")
        // Not a counter Bonjour wrote: a suffix of its own is kept and a counter added.
        #expect(DNSSDStatus.alternative(to: "Quiz (final)") == "Quiz (final) (2)")
        #expect(DNSSDStatus.alternative(to: "Room(2)") == "Room(2) (2)")
        #expect(DNSSDStatus.alternative(to: "(2)") == "(2) (2)")
    }

    @Test func errorsAreSaidByTheirMeaning() {
        let conflict = DNSSDStatus(code: DNSServiceErrorType(kDNSServiceErr_NameConflict))
        #expect(conflict.isNameConflict)
        #expect(conflict.description == "the name is taken on the network (dns_sd -65548)")
        let noDaemon = DNSSDStatus(code: DNSServiceErrorType(kDNSServiceErr_Unknown))
        #expect(!noDaemon.isNameConflict)
        #expect(noDaemon.description.hasPrefix("the mDNS daemon cannot be reached"))
    }
}
