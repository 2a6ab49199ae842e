internal import Synchronization

/*
 Revisions being copied into a database of this process, by any of its replications. A
 device back in a room of N pulls the same new documents from each of its N-1 peers at
 once (they hold the same ones): each pull asked the database which revisions it lacks
 before any had landed, so each fetched and wrote them all — N-1 times the transfer and
 the work, on the device that has the most to catch up. A copy now claims the revisions
 it fetches; another replication that finds them claimed waits for that copy to end and
 asks the database again, fetching only what is still missing (all of it, when the first
 copy failed). Its chunk ends only once every revision is in the database, by whichever
 copy, so checkpoints still record only what is there. A copy never waits while it holds
 claims of its own (it writes its share first), so two copies never wait on each other.
 */
final class RevisionsInFlight: Sendable {
    static let shared = RevisionsInFlight()

    struct Key: Hashable {
        let target: String
        let id: String
        let rev: String
    }

    /// One copy's claims: ended (written or failed) once, waited on by any number.
    final class Claim: Sendable {
        private let state = Mutex<(ended: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

        func end() {
            let waiters = state.withLock { s in
                s.ended = true
                defer { s.waiters = [] }
                return s.waiters
            }
            for waiter in waiters { waiter.resume() }
        }

        func wait() async {
            await withCheckedContinuation { waiter in
                let ended = state.withLock { s in
                    if !s.ended { s.waiters.append(waiter) }
                    return s.ended
                }
                if ended { waiter.resume() }
            }
        }
    }

    private let claims = Mutex<[Key: Claim]>([:])

    /// Claims for `claim` those of `requests` no other copy into `target` holds; returns them,
    /// and the others with the claims they wait on.
    func claim(_ requests: [RevisionRequest], into target: String, for claim: Claim)
        -> (mine: [RevisionRequest], theirs: [(RevisionRequest, Claim)]) {
        claims.withLock { held in
            var mine: [RevisionRequest] = [], theirs: [(RevisionRequest, Claim)] = []
            for request in requests {
                let key = Key(target: target, id: request.id, rev: request.rev)
                if let other = held[key] {
                    theirs.append((request, other))
                } else {
                    held[key] = claim
                    mine.append(request)
                }
            }
            return (mine, theirs)
        }
    }

    /// Lets go of `requests` claimed by `claim` and wakes whoever waits on it.
    func release(_ requests: [RevisionRequest], in target: String, by claim: Claim) {
        claims.withLock { held in
            for request in requests {
                let key = Key(target: target, id: request.id, rev: request.rev)
                if held[key] === claim { held[key] = nil }
            }
        }
        claim.end()
    }
}
