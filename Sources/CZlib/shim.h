#include <zlib.h>

// deflateInit2/inflateInit2 are macros that pass ZLIB_VERSION and the stream size:
// Swift cannot import function-like macros, so wrap them.
static inline int settee_deflate_init_gzip(z_streamp strm, int level) {
    // windowBits 15 + 16 = gzip header and trailer (zlib.h, deflateInit2); memLevel 8 is the default.
    return deflateInit2(strm, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}

static inline int settee_inflate_init_gzip(z_streamp strm) {
    // windowBits 15 + 16 = accept only a gzip wrapper (zlib.h, inflateInit2).
    return inflateInit2(strm, 15 + 16);
}
