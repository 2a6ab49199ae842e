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
#endif
