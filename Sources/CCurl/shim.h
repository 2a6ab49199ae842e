#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic: one typed wrapper per argument kind.
static inline CURLcode settee_curl_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode settee_curl_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode settee_curl_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode settee_curl_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode settee_curl_setopt_offset(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
// Callbacks are function pointers, which Swift cannot pass as `void *`.
static inline CURLcode settee_curl_setopt_write_function(CURL *h, CURLoption o, curl_write_callback f) { return curl_easy_setopt(h, o, f); }
static inline CURLcode settee_curl_setopt_seek_function(CURL *h, curl_seek_callback f) { return curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, f); }
static inline CURLcode settee_curl_setopt_xferinfo_function(CURL *h, curl_xferinfo_callback f) { return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, f); }
static inline CURLcode settee_curl_setopt_ssl_ctx_function(CURL *h, curl_ssl_ctx_callback f) { return curl_easy_setopt(h, CURLOPT_SSL_CTX_FUNCTION, f); }
// curl_multi_setopt is variadic too; a finished transfer's code sits in a union.
static inline CURLMcode settee_curl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }
static inline CURLcode settee_curl_message_result(const CURLMsg *message) { return message->data.result; }
