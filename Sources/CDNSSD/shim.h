#include <dns_sd.h>
/* avahi's own client API, beside its dns_sd compat library (which is built on it): only to
   watch the daemon's host-name state and break a renaming deadlock (HostNameGuard.swift). */
#include <avahi-client/client.h>
#include <avahi-common/error.h>
#include <avahi-common/thread-watch.h>
