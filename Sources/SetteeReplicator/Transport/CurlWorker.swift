internal import CCurl
internal import Glibc
internal import FoundationEssentials

/// The session's curl thread: one multi handle runs up to `maxTransfers` exchanges at
/// once, and its connection cache keeps connections open between them (keep-alive).
/// Easy handles are reused from exchange to exchange (curl_easy_reset keeps nothing
/// of the last one's options); callbacks run on this thread.
struct CurlWorker {
    let verifyTLS: Bool
    /// The one certificate this session's peers may present (`AB:CD:…`), if pinned.
    let pinnedFingerprint: String?
    let maxTransfers: Int

    /// An exchange on the multi handle, and what must live until it ends.
    private struct Running {
        let job: CurlJob
        let headers: UnsafeMutablePointer<curl_slist>?
        let pin: CertificatePin?
    }

    func run(_ queue: JobQueue) {
        guard let multi = curl_multi_init() else {
            while let job = queue.pop() { job.finish(.failure(.transport(code: -1, message: "curl_multi_init failed"))) }
            return
        }
        // A job pushed while the loop waits in curl_multi_poll wakes it (thread-safe).
        let address = Int(bitPattern: multi)  // a pointer is not Sendable; its address is
        queue.onPush { _ = curl_multi_wakeup(UnsafeMutableRawPointer(bitPattern: address)) }
        // Idle connections kept: a replication's session speaks to two peers, each of
        // which may have every exchange in flight at some point; with room for only
        // `maxTransfers` in all, connections to one were closed to open ones to the other.
        settee_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, 2 * maxTransfers)
        var running: [UnsafeMutableRawPointer: Running] = [:]
        var idle: [UnsafeMutableRawPointer] = []
        defer {
            queue.onPush(nil)
            for handle in idle { curl_easy_cleanup(handle) }
            curl_multi_cleanup(multi)
        }
        while true {
            // With nothing running, sleep until a job comes (nil: closed, and done).
            if running.isEmpty {
                guard let job = queue.pop() else { return }
                start(job, multi, &running, &idle)
            }
            while running.count < maxTransfers, let job = queue.tryPop() { start(job, multi, &running, &idle) }
            var stillRunning: Int32 = 0
            curl_multi_perform(multi, &stillRunning)
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                      let ended = running.removeValue(forKey: handle) else { continue }
                curl_multi_remove_handle(multi, handle)
                ended.job.finish(outcome(settee_curl_message_result(message), ended.job.transfer, ended.pin, handle))
                curl_slist_free_all(ended.headers)
                idle.append(handle)
            }
            // Up to a second: cancellation is seen by the progress callback, which curl
            // calls at least that often.
            if !running.isEmpty { curl_multi_poll(multi, nil, 0, 1000, nil) }
        }
    }

    /// Adds `job`'s exchange to the multi handle on a reused (or new) easy handle.
    private func start(_ job: CurlJob, _ multi: UnsafeMutableRawPointer, _ running: inout [UnsafeMutableRawPointer: Running],
                       _ idle: inout [UnsafeMutableRawPointer]) {
        guard let handle = idle.popLast() ?? curl_easy_init() else {
            job.finish(.failure(.transport(code: -1, message: "curl_easy_init failed")))
            return
        }
        curl_easy_reset(handle)
        let (headers, pin) = prepare(job.transfer, on: handle)
        guard curl_multi_add_handle(multi, handle) == CURLM_OK else {
            curl_slist_free_all(headers)
            idle.append(handle)
            job.finish(.failure(.transport(code: -1, message: "curl_multi_add_handle failed")))
            return
        }
        running[handle] = Running(job: job, headers: headers, pin: pin)
    }

    /// Sets `transfer`'s options on `handle`. - Returns: the header list and the pin,
    /// which must live until the exchange ends.
    private func prepare(_ transfer: CurlTransfer, on handle: UnsafeMutableRawPointer)
        -> (UnsafeMutablePointer<curl_slist>?, CertificatePin?) {
        let request = transfer.request
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        var headers: UnsafeMutablePointer<curl_slist>?
        for (name, value) in request.headers { headers = curl_slist_append(headers, "\(name): \(value)") }
        headers = curl_slist_append(headers, "Expect:")  // no 100-continue round trip

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
        if transfer.usesStallTimeout {
            // A feed may rightly stream for hours, and a 1 GiB attachment take minutes on a
            // slow link: a stall (no byte for the timeout) ends them, not their length.
            settee_curl_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, 1)
            settee_curl_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, max(1, milliseconds / 1000))
        } else {
            settee_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, max(1, milliseconds))
        }
        setMethodAndBody(request, handle)
        if let upload = request.upload { setUploadCallbacks(handle, context, upload) }
        if transfer.usesStallTimeout {
            // Attachments in larger pieces than curl's 16 KiB and 64 KiB defaults: a 1 GiB
            // one is 65,536 callbacks and spool writes less (curl_easy_reset restores them).
            settee_curl_setopt_long(handle, CURLOPT_BUFFERSIZE, 256 * 1024)
            settee_curl_setopt_long(handle, CURLOPT_UPLOAD_BUFFERSIZE, 256 * 1024)
        }

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
        return (headers, pin)
    }

    /// What an ended exchange reports: its status, or why there is none.
    private func outcome(_ code: CURLcode, _ transfer: CurlTransfer, _ pin: CertificatePin?,
                         _ handle: UnsafeMutableRawPointer) -> Result<Int, RemoteError> {
        if transfer.isCancelled { return .failure(.cancelled) }
        if let failure = transfer.uploadFailure { return .failure(.transport(code: -1, message: failure)) }
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
        if let upload = request.upload {
            // Read as sent (`CURLOPT_READFUNCTION`): attachment bytes come from spool files.
            settee_curl_setopt_long(handle, CURLOPT_UPLOAD, 1)
            settee_curl_setopt_offset(handle, CURLOPT_INFILESIZE_LARGE, curl_off_t(upload.length))
            settee_curl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, request.method)
            return
        }
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

    /// The upload body's read and rewind callbacks (curl rewinds to send a body again
    /// on a fresh connection when a kept-alive one turned out closed).
    /// Each exchange sends the body from its first byte: a request sent again (after a
    /// refused session cookie) reuses it.
    private func setUploadCallbacks(_ handle: UnsafeMutableRawPointer, _ context: UnsafeMutableRawPointer,
                                    _ upload: UploadBody) {
        upload.rewind()
        settee_curl_setopt_write_function(handle, CURLOPT_READFUNCTION) { data, size, count, context in
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
            let buffer = UnsafeMutableRawBufferPointer(start: data, count: size * count)
            // CURL_READFUNC_ABORT: ends the exchange with CURLE_ABORTED_BY_CALLBACK.
            return transfer.readUpload(into: buffer) ?? 0x1000_0000
        }
        settee_curl_setopt_pointer(handle, CURLOPT_READDATA, context)
        settee_curl_setopt_seek_function(handle) { context, offset, origin in
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
            guard offset == 0, origin == SEEK_SET else { return 2 }  // CURL_SEEKFUNC_CANTSEEK
            transfer.request.upload?.rewind()
            return 0  // CURL_SEEKFUNC_OK
        }
        settee_curl_setopt_pointer(handle, CURLOPT_SEEKDATA, context)
    }
}
