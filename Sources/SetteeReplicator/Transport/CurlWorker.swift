internal import CCurl
internal import FoundationEssentials

/// One curl thread: an easy handle reused for every exchange it runs, so its
/// connections stay open between them (curl_easy_reset keeps live connections).
struct CurlWorker {
    let verifyTLS: Bool
    /// The one certificate this session's peers may present (`AB:CD:…`), if pinned.
    let pinnedFingerprint: String?

    func run(_ queue: JobQueue) {
        guard let handle = curl_easy_init() else {
            while let job = queue.pop() { job.finish(.failure(.transport(code: -1, message: "curl_easy_init failed"))) }
            return
        }
        defer { curl_easy_cleanup(handle) }
        while let job = queue.pop() {
            curl_easy_reset(handle)
            job.finish(perform(job.transfer, on: handle))
        }
    }

    private func perform(_ transfer: CurlTransfer, on handle: UnsafeMutableRawPointer) -> Result<Int, RemoteError> {
        let request = transfer.request
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        var headers: UnsafeMutablePointer<curl_slist>?
        for (name, value) in request.headers { headers = curl_slist_append(headers, "\(name): \(value)") }
        headers = curl_slist_append(headers, "Expect:")  // no 100-continue round trip
        defer { curl_slist_free_all(headers) }

        settee_curl_setopt_string(handle, CURLOPT_URL, request.url)
        settee_curl_setopt_pointer(handle, CURLOPT_HTTPHEADER, headers)
        settee_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        settee_curl_setopt_string(handle, CURLOPT_ACCEPT_ENCODING, "")
        settee_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, 10_000)
        settee_curl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, verifyTLS ? 1 : 0)
        settee_curl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, verifyTLS ? 2 : 0)
        let pin = pinnedFingerprint.map(CertificatePin.init)
        pin?.install(on: handle)
        let milliseconds = Int(request.timeout.components.seconds * 1000
            + request.timeout.components.attoseconds / 1_000_000_000_000_000)
        if transfer.isStreaming {
            // A feed may rightly stream for hours; a stall (no byte for the timeout) ends it.
            settee_curl_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, 1)
            settee_curl_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, max(1, milliseconds / 1000))
        } else {
            settee_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, max(1, milliseconds))
        }
        setMethodAndBody(request, handle)

        settee_curl_setopt_write_function(handle, CURLOPT_WRITEFUNCTION) { data, size, count, context in
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
            let length = size * count
            let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(data!).assumingMemoryBound(to: UInt8.self),
                                            count: length)
            return transfer.received(bytes) ? length : 0
        }
        settee_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context)
        settee_curl_setopt_write_function(handle, CURLOPT_HEADERFUNCTION) { data, size, count, context in
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
            let length = size * count
            transfer.receivedHeader(UnsafeBufferPointer(
                start: UnsafeRawPointer(data!).assumingMemoryBound(to: UInt8.self), count: length))
            return length
        }
        settee_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, context)
        settee_curl_setopt_long(handle, CURLOPT_NOPROGRESS, 0)
        settee_curl_setopt_xferinfo_function(handle) { context, _, _, _, _ in
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
            return transfer.isCancelled ? 1 : 0
        }
        settee_curl_setopt_pointer(handle, CURLOPT_XFERINFODATA, context)

        let code = curl_easy_perform(handle)
        if transfer.isCancelled { return .failure(.cancelled) }
        if code != CURLE_OK, let pin, let presented = pin.mismatch {
            return .failure(.certificateMismatch(expected: pin.expected, presented: presented))
        }
        switch code {
        case CURLE_OK: break
        case CURLE_WRITE_ERROR where transfer.stoppedByConsumer: break
        case CURLE_OPERATION_TIMEDOUT: return .failure(.timedOut)
        case CURLE_ABORTED_BY_CALLBACK: return .failure(.cancelled)
        default:
            return .failure(.transport(code: Int(code.rawValue), message: String(cString: curl_easy_strerror(code))))
        }
        var status = 0
        settee_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return .success(status)
    }

    /// GET and HEAD carry no body; any other method sends exactly `request.body`
    /// (an empty one as `Content-Length: 0`).
    private func setMethodAndBody(_ request: RemoteRequest, _ handle: UnsafeMutableRawPointer) {
        switch request.method {
        case "GET" where request.body == nil:
            settee_curl_setopt_long(handle, CURLOPT_HTTPGET, 1)
        case "HEAD":
            settee_curl_setopt_long(handle, CURLOPT_NOBODY, 1)
        default:
            let body = request.body ?? []
            settee_curl_setopt_offset(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
            // COPYPOSTFIELDS copies: the bytes need not outlive this call.
            if body.isEmpty {
                settee_curl_setopt_string(handle, CURLOPT_COPYPOSTFIELDS, "")
            } else {
                _ = body.withUnsafeBufferPointer { buffer in
                    settee_curl_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: buffer.baseAddress))
                }
            }
            if request.method != "POST" { settee_curl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, request.method) }
        }
    }
}
