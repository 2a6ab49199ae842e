#ifndef SETTEE_CLINUX_SHIM_H
#define SETTEE_CLINUX_SHIM_H
#include <fcntl.h>

// sync_file_range(2) is declared only under _GNU_SOURCE, which Glibc's Swift module
// is built without; the prototype is glibc's own.
extern int sync_file_range(int fd, off_t offset, off_t nbytes, unsigned int flags);

// Starts writeback of a byte range of `fd` without waiting for it
// (SYNC_FILE_RANGE_WRITE, also a _GNU_SOURCE name).
static inline int settee_start_writeback(int fd, off_t offset, off_t nbytes) {
    return sync_file_range(fd, offset, nbytes, 2 /* SYNC_FILE_RANGE_WRITE */);
}

#include <stddef.h>
// memmem(3), a GNU extension too (glibc's two-way search, vectorized): the first
// `needle` in `haystack`, or NULL.
extern void *memmem(const void *haystack, size_t haystacklen, const void *needle, size_t needlelen);

// fallocate(2), also declared only under _GNU_SOURCE; the prototype is glibc's own.
extern int fallocate(int fd, int mode, off_t offset, off_t len);

// Frees the file system blocks of a byte range of `fd`, which reads back as zeros
// afterwards; the file keeps its size. The flags are linux/falloc.h's
// FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE (that header's own types clash with
// Glibc's module).
static inline int settee_punch_hole(int fd, off_t offset, off_t length) {
    return fallocate(fd, 0x02 | 0x01, offset, length);
}

// O_DIRECT for open(2): glibc names it only under _GNU_SOURCE, but always defines
// __O_DIRECT, whose value differs between architectures.
static inline int settee_o_direct(void) { return __O_DIRECT; }
#endif
