#include <dns_sd.h>
/* avahi's own client API, beside its dns_sd compat library (which is built on it): only to
   watch the daemon's host-name state, break a renaming deadlock (HostNameGuard.swift) and check
   that a renamed host's address records followed (HostRecordCheck.swift). */
#include <avahi-client/client.h>
#include <avahi-client/lookup.h>
#include <avahi-common/error.h>
#include <avahi-common/thread-watch.h>
