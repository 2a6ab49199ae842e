import CDNSSD
import Dispatch
import Glibc
@testable import SetteeDiscovery
import Synchronization
import Testing

/// `DNSSDLoop` with refs of the test's own (a pipe each, standing for a ref's socket to the
/// daemon): a callback that ends and replaces another token's ref within one round must not
/// have the old ref processed after it was deallocated (in avahi's compat library that is a
/// freed mutex, and an abort: a device of a 20-device room died so).
@Suite struct DNSSDLoopTests {
    /// What the fake dns_sd calls saw.
    final class Ledger: Sendable {
        let deallocated = Mutex<Set<Int32>>([])
        let processedAfterDeallocation = Mutex<[Int32]>([])
        let processed = Mutex<[Int32]>([])
    }

    /// A fake ref's read end, carried in the ref's bits (+1: a ref is never null).
    static func ref(_ fd: Int32) -> DNSServiceRef { OpaquePointer(bitPattern: Int(fd) + 1)! }
    static func fd(_ ref: DNSServiceRef) -> Int32 { Int32(Int(bitPattern: UnsafeRawPointer(ref)) - 1) }

    static func pipeReadyToRead() -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        var one: UInt8 = 1
        #expect(write(fds[1], &one, 1) == 1)
        return (fds[0], fds[1])
    }

    @Test func aRefReplacedByAnEarlierCallbackOfTheRoundIsNotProcessed() throws {
        let ledger = Ledger()
        // Both tokens' refs are readable in the same round; whichever is processed first
        // replaces the other's (dictionary order decides which: both orders must hold).
        let first = Self.pipeReadyToRead(), second = Self.pipeReadyToRead()
        var spareEnds: [Int32] = [0, 0]
        #expect(pipe(&spareEnds) == 0)
        let spare = spareEnds
        let fakeRefs = [first.read, first.write, second.read, second.write] + spare
        let tokenA = NSObjectToken(), tokenB = NSObjectToken()
        let roundDone = DispatchSemaphore(value: 0)
        let replaced = Mutex(false)
        let box = LoopBox()
        let loop = DNSSDLoop(calls: DNSSDLoop.Calls(
            socket: { Self.fd($0) },
            process: { ref in
                let fd = Self.fd(ref)
                if ledger.deallocated.withLock({ $0.contains(fd) }) {
                    ledger.processedAfterDeallocation.withLock { $0.append(fd) }
                }
                ledger.processed.withLock { $0.append(fd) }
                var byte: UInt8 = 0
                _ = read(fd, &byte, 1)
                // The first callback of the round ends the other token's ref and opens a new one.
                guard replaced.withLock({ done in defer { done = true }; return !done }), let loop = box.loop else {
                    return DNSServiceErrorType(kDNSServiceErr_NoError)
                }
                let other = fd == first.read ? tokenB : tokenA
                loop.remove(other)
                loop.add(other, Self.ref(spare[0])) { _ in }
                loop.perform { roundDone.signal() }
                return DNSServiceErrorType(kDNSServiceErr_NoError)
            },
            deallocate: { ref in _ = ledger.deallocated.withLock { $0.insert(Self.fd(ref)) } }))
        box.loop = loop
        loop.start()
        defer { Self.stopThenClose(loop, fakeRefs) }
        loop.perform {
            loop.add(tokenA, Self.ref(first.read)) { _ in }
            loop.add(tokenB, Self.ref(second.read)) { _ in }
        }
        #expect(roundDone.wait(timeout: .now() + 10) == .success, "no ref was processed")
        #expect(ledger.processedAfterDeallocation.withLock { $0 } == [], "processed: \(ledger.processed.withLock { $0 })")
        #expect(ledger.processed.withLock { $0.count } == 1)
    }

    @Test func addingForATokenThatHasARefDeallocatesTheOldOne() throws {
        let ledger = Ledger()
        // Two descriptors that stand for two refs (the pipe's ends; nothing is read from them).
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let fds = ends
        let loop = DNSSDLoop(calls: DNSSDLoop.Calls(
            socket: { Self.fd($0) }, process: { _ in DNSServiceErrorType(kDNSServiceErr_NoError) },
            deallocate: { ref in _ = ledger.deallocated.withLock { $0.insert(Self.fd(ref)) } }))
        let token = NSObjectToken(), added = DispatchSemaphore(value: 0)
        loop.start()
        defer { Self.stopThenClose(loop, fds) }
        loop.perform {
            loop.add(token, Self.ref(fds[0])) { _ in }
            loop.add(token, Self.ref(fds[1])) { _ in }
            added.signal()
        }
        #expect(added.wait(timeout: .now() + 10) == .success)
        #expect(ledger.deallocated.withLock { $0 } == [fds[0]])
    }
}

extension DNSSDLoopTests {
    /// Stops `loop` and closes the fake refs' descriptors once it polls and processes
    /// none again: closed while it still did, their numbers could be reused by another
    /// test's socket, and the fake `process` reads a byte from what it polls.
    static func stopThenClose(_ loop: DNSSDLoop, _ fds: [Int32]) {
        let stopped = DispatchSemaphore(value: 0)
        loop.stop { stopped.signal() }
        #expect(stopped.wait(timeout: .now() + 10) == .success, "the loop did not stop")
        for fd in fds { close(fd) }
    }

    /// A retry timer may hand the loop work after it stopped. That work is dropped, and its
    /// wake-up byte goes to the loop's own pipe, still open: the pipe used to be closed when the
    /// thread ended, and the byte then went to whatever reused the number (a stray 0x01 before
    /// an HTTP status line: curl's "Unsupported protocol" in CurlSessionTests on CI).
    @Test func workAfterStopIsDroppedAndWritesNoOtherDescriptor() throws {
        let loop = DNSSDLoop(calls: DNSSDLoop.Calls(
            socket: { _ in -1 }, process: { _ in DNSServiceErrorType(kDNSServiceErr_NoError) }, deallocate: { _ in }))
        loop.start()
        let stopped = DispatchSemaphore(value: 0)
        loop.stop { stopped.signal() }
        #expect(stopped.wait(timeout: .now() + 10) == .success)
        // Descriptors opened now take the lowest free numbers: the wake pipe's, had it been closed.
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { for fd in ends { close(fd) } }
        _ = fcntl(ends[0], F_SETFL, O_NONBLOCK)
        let ran = Mutex(false)
        loop.perform { ran.withLock { $0 = true } }
        var byte: UInt8 = 0
        #expect(read(ends[0], &byte, 1) == -1 && errno == EAGAIN, "a byte reached a descriptor the loop does not own")
        #expect(ran.withLock { $0 } == false)
    }
}

/// A token: any object (the loop keys refs by identity).
private final class NSObjectToken: Sendable {}

/// The loop, for the fake calls made before it exists.
private final class LoopBox: @unchecked Sendable {
    // @unchecked: set once before the loop starts, read on the loop thread after.
    var loop: DNSSDLoop?
}
