#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/rand.h>
#include <openssl/hmac.h>

// OpenSSL 3.0 exposes these as macros (or variadic functions), which Swift cannot import.
static inline long settee_ssl_ctx_set_min_proto_version(SSL_CTX *ctx, int v) { return SSL_CTX_set_min_proto_version(ctx, v); }
static inline long settee_ssl_ctx_set_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_mode(ctx, mode); }
static inline long settee_ssl_ctx_set_session_cache_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_session_cache_mode(ctx, mode); }
static inline void settee_ssl_ctx_set_read_ahead(SSL_CTX *ctx, int yes) { SSL_CTX_set_read_ahead(ctx, yes); }
static inline EVP_PKEY *settee_evp_ec_gen(const char *curve) { return EVP_EC_gen(curve); }
static inline long settee_bio_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }
static inline uint64_t settee_ssl_op_no_renegotiation(void) { return SSL_OP_NO_RENEGOTIATION; }
static inline uint64_t settee_ssl_op_cipher_server_preference(void) { return SSL_OP_CIPHER_SERVER_PREFERENCE; }
static inline int settee_ssl_verify_peer(int required) { return SSL_VERIFY_PEER | (required ? SSL_VERIFY_FAIL_IF_NO_PEER_CERT : 0); }
static inline long settee_ssl_mode_partial_write(void) { return SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER; }

// A BIO over a non-blocking socket with recv/send, for the server's TLS sessions.
// OpenSSL's own socket BIO uses read/write, which go through the VFS layer
// (fdget_pos, vfs_read, rw_verify_area) on every record: recv/send skip it
// (bench/tls). Semantics as the socket BIO's: EAGAIN asks for a retry, 0 is end
// of stream (BIO_eof, which OpenSSL reads to report an unexpected EOF), the fd is
// not closed with the BIO. It also remembers whether the last recv found the kernel's
// queue empty (a short read, or EAGAIN): a short SSL_read alone does not say so, since
// OpenSSL may read less than the socket holds (its buffer is one record, 512 bytes for
// a client that negotiated max_fragment_length).
#include <sys/socket.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

struct settee_socket_bio_state {
    int fd;
    int drained;
};

static int settee_socket_bio_write(BIO *bio, const char *data, int length) {
    struct settee_socket_bio_state *state = BIO_get_data(bio);
    ssize_t n = send(state->fd, data, (size_t)length, MSG_NOSIGNAL);
    BIO_clear_retry_flags(bio);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) BIO_set_retry_write(bio);
    return (int)n;
}

static int settee_socket_bio_read(BIO *bio, char *data, int length) {
    struct settee_socket_bio_state *state = BIO_get_data(bio);
    ssize_t n = recv(state->fd, data, (size_t)length, 0);
    BIO_clear_retry_flags(bio);
    state->drained = n < length;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) BIO_set_retry_read(bio);
    else if (n == 0) BIO_set_flags(bio, BIO_FLAGS_IN_EOF);
    return (int)n;
}

static long settee_socket_bio_ctrl(BIO *bio, int command, long number, void *pointer) {
    (void)number; (void)pointer;
    struct settee_socket_bio_state *state = BIO_get_data(bio);
    switch (command) {
    case BIO_CTRL_FLUSH: return 1;
    case BIO_CTRL_EOF: return BIO_test_flags(bio, BIO_FLAGS_IN_EOF) != 0;
    case BIO_C_GET_FD: return state ? state->fd : -1;
    default: return 0;
    }
}

static int settee_socket_bio_create(BIO *bio) {
    BIO_set_init(bio, 1);
    return 1;
}

static int settee_socket_bio_destroy(BIO *bio) {
    free(BIO_get_data(bio));
    BIO_set_data(bio, NULL);
    return 1;
}

/// The method table; made once by the caller and never freed.
static inline BIO_METHOD *settee_socket_bio_method_new(void) {
    BIO_METHOD *method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK | BIO_TYPE_DESCRIPTOR, "settee socket");
    if (!method) return NULL;
    BIO_meth_set_write(method, settee_socket_bio_write);
    BIO_meth_set_read(method, settee_socket_bio_read);
    BIO_meth_set_ctrl(method, settee_socket_bio_ctrl);
    BIO_meth_set_create(method, settee_socket_bio_create);
    BIO_meth_set_destroy(method, settee_socket_bio_destroy);
    return method;
}

/// A BIO of `method` over `fd`; NULL when OpenSSL cannot make one.
static inline BIO *settee_socket_bio_new(BIO_METHOD *method, int fd) {
    struct settee_socket_bio_state *state = calloc(1, sizeof *state);
    if (!state) return NULL;
    state->fd = fd;
    BIO *bio = BIO_new(method);
    if (!bio) { free(state); return NULL; }
    BIO_set_data(bio, state);
    return bio;
}

/// Whether the last recv on the BIO's socket found the kernel's queue empty.
static inline int settee_socket_bio_drained(BIO *bio) {
    struct settee_socket_bio_state *state = BIO_get_data(bio);
    return state && state->drained;
}
