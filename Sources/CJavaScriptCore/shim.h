// JavaScriptCore's C API (WebKitGTK's libjavascriptcoregtk, as TouchDB used JavaScriptCore)
// for design document functions.
#include <JavaScriptCore/JavaScript.h>

// Exported by libjavascriptcoregtk-4.1 but declared only in WebKit's private
// JSContextRefPrivate.h, which Debian does not install: a script that runs past
// `limit` seconds is stopped when `callback` answers true.
typedef bool (*JSShouldTerminateCallback)(JSContextRef ctx, void *context);
JS_EXPORT void JSContextGroupSetExecutionTimeLimit(JSContextGroupRef group, double limit,
                                                   JSShouldTerminateCallback callback, void *context);
