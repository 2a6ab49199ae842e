#ifndef SETTEE_CEPOLL_SHIM_H
#define SETTEE_CEPOLL_SHIM_H
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

// accept4(2) is declared only under _GNU_SOURCE, which Glibc's Swift module is
// built without; the prototype is glibc's own.
extern int accept4(int fd, struct sockaddr *addr, socklen_t *addrlen, int flags);
#endif
