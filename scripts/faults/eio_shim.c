/*
 An LD_PRELOAD shim for tests of a failing disk (issue #44, item 2): once the file named
 by $SETTEE_EIO_TRIGGER exists, fsync, fdatasync, write, pwrite, pwrite64 and writev on a
 file whose path contains $SETTEE_EIO_MATCH fail with EIO, as a dying disk's would.
 Everything else goes to libc. Build: cc -shared -fPIC -O2 -o eio_shim.so eio_shim.c -ldl
*/
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

/* Whether a call on fd must fail now: the trigger exists and the file's path matches. */
static int failing(int fd) {
    const char *trigger = getenv("SETTEE_EIO_TRIGGER");
    const char *match = getenv("SETTEE_EIO_MATCH");
    if (!trigger || !match || access(trigger, F_OK) != 0) return 0;
    char link[64], path[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n <= 0) return 0;
    path[n] = 0;
    return strstr(path, match) != NULL;
}

typedef int (*sync_fn)(int);
typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);
typedef ssize_t (*pwrite64_fn)(int, const void *, size_t, off64_t);
typedef ssize_t (*writev_fn)(int, const struct iovec *, int);

/* libc's own function `name`, looked up once. */
#define REAL(name, type) static type real = NULL; if (!real) real = (type)dlsym(RTLD_NEXT, name)

int fsync(int fd) {
    REAL("fsync", sync_fn);
    if (failing(fd)) { errno = EIO; return -1; }
    return real(fd);
}

int fdatasync(int fd) {
    REAL("fdatasync", sync_fn);
    if (failing(fd)) { errno = EIO; return -1; }
    return real(fd);
}

ssize_t write(int fd, const void *buffer, size_t count) {
    REAL("write", write_fn);
    if (failing(fd)) { errno = EIO; return -1; }
    return real(fd, buffer, count);
}

ssize_t pwrite(int fd, const void *buffer, size_t count, off_t offset) {
    REAL("pwrite", pwrite_fn);
    if (failing(fd)) { errno = EIO; return -1; }
    return real(fd, buffer, count, offset);
}

ssize_t pwrite64(int fd, const void *buffer, size_t count, off64_t offset) {
    REAL("pwrite64", pwrite64_fn);
    if (failing(fd)) { errno = EIO; return -1; }
    return real(fd, buffer, count, offset);
}

ssize_t writev(int fd, const struct iovec *vector, int count) {
    REAL("writev", writev_fn);
    if (failing(fd)) { errno = EIO; return -1; }
    return real(fd, vector, count);
}
