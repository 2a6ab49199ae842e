internal import Dispatch
internal import CDNSSD
internal import FoundationEssentials
internal import Glibc
internal import Synchronization

/*
 dns_sd's model: each operation (register, browse, resolve, query) gives a
 DNSServiceRef with a socket to the daemon; its replies are read, and its
 callbacks run, when the owner calls DNSServiceProcessResult on that ref. One
 thread owns every ref here: it polls their sockets, processes replies, and runs
 the work other threads hand it (`perform`), so no ref is ever touched by two
 threads (the library is not thread-safe) and callbacks never race each other.
 A reply that reports an error, or a socket the daemon closed (it restarted),
 ends that ref: its `onFailure` runs, and the owner decides what to do next.
 A callback may end and replace another token's ref within one round (a resolution whose
 host changed asks for its addresses again): the round then skips the replaced entry, known
 by its serial number, not by its token alone. Processing the old, deallocated ref there made
 avahi's compat library abort (`compat.c: DNSServiceProcessResult: Assertion '__ret == 0'
 failed`, its mutex freed): one device of a room of 20 sharing a host name died so.
 */
final class DNSSDLoop: @unchecked Sendable {
    // @unchecked: `refs` is touched only on the loop thread; `work` under its lock.
    struct Entry {
        let ref: DNSServiceRef
        /// Which `add` made it: a token's next ref has another.
        let serial: UInt64
        let onFailure: (Int32) -> Void
    }

    /// The three dns_sd calls the loop makes on a ref (tests give it refs of their own).
    struct Calls: Sendable {
        var socket: @Sendable (DNSServiceRef) -> Int32 = { DNSServiceRefSockFD($0) }
        var process: @Sendable (DNSServiceRef) -> DNSServiceErrorType = { DNSServiceProcessResult($0) }
        var deallocate: @Sendable (DNSServiceRef) -> Void = { DNSServiceRefDeallocate($0) }
    }

    private let calls: Calls
    private var refs: [ObjectIdentifier: Entry] = [:]
    private var serials: UInt64 = 0
    private let work = Mutex<[@Sendable () -> Void]>([])
    private let stopped = Atomic<Bool>(false)
    /// Wakes the poll when work arrives (an eventfd would do; a pipe is portable).
    private let wake: (read: Int32, write: Int32)

    init(calls: Calls = Calls()) {
        self.calls = calls
        var fds: [Int32] = [0, 0]
        _ = pipe(&fds)
        for fd in fds { _ = fcntl(fd, F_SETFL, O_NONBLOCK); _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        wake = (fds[0], fds[1])
    }

    func start() {
        // A queue of its own: the loop blocks in poll(2) on a thread it keeps for life.
        DispatchQueue(label: "settee-dnssd").async { [self] in run() }
    }

    /// The wake pipe is closed here, not when the thread ends: a retry timer may still
    /// `perform` after `stop`, and its byte written to a closed descriptor's number, since
    /// reused, went into whatever the process had opened next (a client's HTTP connection
    /// got a stray 0x01 before its status line in the unit tests). While anything can still
    /// call `perform`, it holds this object, so the pipe outlives every such write.
    deinit {
        close(wake.read)
        close(wake.write)
    }

    /// Runs `block` on the loop thread (soon, not now); after `stop`, never.
    func perform(_ block: @escaping @Sendable () -> Void) {
        let accepted = work.withLock { w in
            guard !stopped.load(ordering: .acquiring) else { return false }
            w.append(block)
            return true
        }
        guard accepted else { return }
        var one: UInt8 = 1
        _ = write(wake.write, &one, 1)
    }

    /// On the loop thread: watches `ref` until `remove`, or until it fails.
    func add(_ token: AnyObject, _ ref: DNSServiceRef, onFailure: @escaping (Int32) -> Void) {
        serials += 1
        if let replaced = refs.updateValue(Entry(ref: ref, serial: serials, onFailure: onFailure), forKey: ObjectIdentifier(token)) {
            calls.deallocate(replaced.ref)
        }
    }

    /// On the loop thread: deallocates `token`'s ref, if it has one.
    func remove(_ token: AnyObject) {
        if let entry = refs.removeValue(forKey: ObjectIdentifier(token)) { calls.deallocate(entry.ref) }
    }

    /// Ends the thread after deallocating every ref (withdrawing what was published).
    /// `done` runs on the loop thread once it will poll and process no ref again (a test
    /// closes its fake refs' descriptors only then).
    func stop(then done: (@Sendable () -> Void)? = nil) {
        perform { [self] in
            for entry in refs.values { calls.deallocate(entry.ref) }
            refs = [:]
            stopped.store(true, ordering: .releasing)
            done?()
        }
    }

    private func run() {
        while !stopped.load(ordering: .acquiring) {
            let watched = Array(refs)
            var polls = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            polls += watched.map { pollfd(fd: calls.socket($0.value.ref), events: Int16(POLLIN), revents: 0) }
            _ = poll(&polls, nfds_t(polls.count), 1000)
            if polls[0].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                while read(wake.read, &drain, drain.count) > 0 {}
            }
            for (index, (key, entry)) in watched.enumerated() where polls[index + 1].revents != 0 {
                // Removed, or removed and replaced, by a callback earlier in this round.
                guard refs[key]?.serial == entry.serial else { continue }
                let status = calls.process(entry.ref)
                if status != kDNSServiceErr_NoError, refs[key]?.serial == entry.serial {
                    refs[key] = nil
                    calls.deallocate(entry.ref)
                    entry.onFailure(status)
                }
            }
            for block in work.withLock({ w in defer { w = [] }; return w }) { block() }
        }
    }
}
