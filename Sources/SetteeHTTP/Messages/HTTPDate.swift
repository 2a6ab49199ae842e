internal import Glibc
internal import Synchronization

/// The `Date` header's value, RFC 9110 §5.6.7 IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
///
/// RFC 9110 §6.6.1: an origin server with a clock must send `Date`, and CouchDB does
/// (API Reference › Server › `GET /` shows it). It changes once a second, so it is
/// formatted once a second, not per response.
public enum HTTPDate {
    private struct Cached {
        var second: Int = -1
        var text = ""
    }

    private static let cache = Mutex(Cached())
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The current time as an IMF-fixdate.
    public static func now() -> String {
        let seconds = time(nil)
        return cache.withLock { cached in
            if cached.second != seconds {
                cached.text = format(seconds)
                cached.second = seconds
            }
            return cached.text
        }
    }

    /// `seconds` since the epoch as an IMF-fixdate.
    public static func format(_ seconds: Int) -> String {
        var parts = tm()
        var time = seconds
        gmtime_r(&time, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
