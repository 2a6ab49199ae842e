/// How long a thread spins for its next piece of work before it sleeps, adapted to the
/// gaps it meets (the way the kernel's haltpoll governor adapts its poll): a gap the
/// spin caught keeps the window; one a longer spin would have caught, within `limit`,
/// widens it; one longer than `limit` halves it, down to no spin at all.
///
/// So a stream of reads a few tens of µs apart (one client's queries) is caught with no
/// sleep, while reads far apart, or a machine so loaded that the gaps grow past the
/// limit, soon cost no spinning.
struct SpinWindow {
    /// The longest spin, in nanoseconds.
    let limit: UInt64
    /// The spin before the next wait, in nanoseconds (0 ... limit).
    private(set) var current: UInt64

    init(limit: UInt64) {
        self.limit = limit
        current = limit
    }

    /// Records a wait that ended `gap` ns after it began.
    mutating func record(gap: UInt64) {
        if gap <= current { return }
        if gap <= limit {
            current = min(limit, max(current * 2, limit / 4))
        } else {
            current /= 2
            if current < limit / 16 { current = 0 }
        }
    }
}
