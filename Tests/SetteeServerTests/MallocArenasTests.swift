import Glibc
@testable import SetteeServer
import SetteeViews
import Testing

/// `MallocArenas`: `settee serve` caps glibc's arenas at one per core (two at least), unless
/// the environment sets a cap glibc reads itself.
@Suite struct MallocArenasTests {
    @Test func oneArenaPerCoreTwoAtLeast() {
        #expect(MallocArenas.cap(environment: [:], cores: 2) == 2)
        #expect(MallocArenas.cap(environment: [:], cores: 1) == 2)
        #expect(MallocArenas.cap(environment: [:], cores: 8) == 8)
    }

    @Test func theEnvironmentGlibcReadsWins() {
        #expect(MallocArenas.cap(environment: ["MALLOC_ARENA_MAX": "16"], cores: 2) == nil)
        #expect(MallocArenas.cap(environment: ["GLIBC_TUNABLES": "glibc.malloc.arena_max=16"], cores: 2) == nil)
        #expect(MallocArenas.cap(environment: ["GLIBC_TUNABLES": "glibc.malloc.trim_threshold=0"], cores: 2) == 2)
    }

    @Test func glibcTakesTheCap() {
        // glibc's own default (eight per core): the test process's heap is left as it was.
        let cores = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        #expect(ProcessHeap.capArenas(at: 8 * cores))
    }
}
