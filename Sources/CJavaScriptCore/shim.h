// JavaScriptCore's C API (WebKitGTK's libjavascriptcoregtk-4.1, as TouchDB used
// JavaScriptCore) for design document functions, loaded at run time with dlopen:
// Settee builds and runs without it, and only design document functions need it, so
// the container image can leave its 70 MB (JavaScriptCore and ICU) out. The types are
// JavaScriptCore's opaque pointers; the functions are called through the table below
// under their own names, so Swift code reads as if linked against the library.
#include <dlfcn.h>
#include <malloc.h>
#include <stdio.h>
#include <stdbool.h>
#include <stddef.h>

typedef const struct OpaqueJSContextGroup *JSContextGroupRef;
typedef const struct OpaqueJSContext *JSContextRef;
typedef struct OpaqueJSContext *JSGlobalContextRef;
typedef struct OpaqueJSString *JSStringRef;
typedef struct OpaqueJSClass *JSClassRef;
typedef const struct OpaqueJSValue *JSValueRef;
typedef struct OpaqueJSValue *JSObjectRef;
// JSContextRefPrivate.h (not installed by Debian): a script running past the limit is
// stopped when the callback answers true.
typedef bool (*JSShouldTerminateCallback)(JSContextRef ctx, void *context);

#define SETTEE_JSC_FUNCTIONS(F) \
    F(JSContextGroupRef, JSContextGroupCreate, (void), ()) \
    F(void, JSContextGroupRelease, (JSContextGroupRef g), (g)) \
    F(JSGlobalContextRef, JSGlobalContextCreateInGroup, (JSContextGroupRef g, JSClassRef c), (g, c)) \
    F(void, JSGlobalContextRelease, (JSGlobalContextRef c), (c)) \
    F(void, JSContextGroupSetExecutionTimeLimit, \
      (JSContextGroupRef g, double l, JSShouldTerminateCallback cb, void *x), (g, l, cb, x)) \
    F(JSObjectRef, JSContextGetGlobalObject, (JSContextRef c), (c)) \
    F(JSValueRef, JSEvaluateScript, \
      (JSContextRef c, JSStringRef s, JSObjectRef t, JSStringRef u, int l, JSValueRef *e), (c, s, t, u, l, e)) \
    F(JSValueRef, JSObjectCallAsFunction, \
      (JSContextRef c, JSObjectRef o, JSObjectRef t, size_t n, const JSValueRef a[], JSValueRef *e), (c, o, t, n, a, e)) \
    F(JSValueRef, JSObjectGetProperty, (JSContextRef c, JSObjectRef o, JSStringRef n, JSValueRef *e), (c, o, n, e)) \
    F(bool, JSObjectIsFunction, (JSContextRef c, JSObjectRef o), (c, o)) \
    F(JSStringRef, JSStringCreateWithUTF8CString, (const char *s), (s)) \
    F(void, JSStringRelease, (JSStringRef s), (s)) \
    F(size_t, JSStringGetMaximumUTF8CStringSize, (JSStringRef s), (s)) \
    F(size_t, JSStringGetUTF8CString, (JSStringRef s, char *b, size_t n), (s, b, n)) \
    F(bool, JSValueIsObject, (JSContextRef c, JSValueRef v), (c, v)) \
    F(bool, JSValueIsString, (JSContextRef c, JSValueRef v), (c, v)) \
    F(JSValueRef, JSValueMakeBoolean, (JSContextRef c, bool b), (c, b)) \
    F(JSValueRef, JSValueMakeNumber, (JSContextRef c, double n), (c, n)) \
    F(bool, JSValueToBoolean, (JSContextRef c, JSValueRef v), (c, v)) \
    F(JSValueRef, JSValueMakeFromJSONString, (JSContextRef c, JSStringRef s), (c, s)) \
    F(void, JSValueProtect, (JSContextRef c, JSValueRef v), (c, v)) \
    F(void, JSValueUnprotect, (JSContextRef c, JSValueRef v), (c, v)) \
    F(JSObjectRef, JSValueToObject, (JSContextRef c, JSValueRef v, JSValueRef *e), (c, v, e)) \
    F(JSStringRef, JSValueToStringCopy, (JSContextRef c, JSValueRef v, JSValueRef *e), (c, v, e)) \
    F(double, JSValueToNumber, (JSContextRef c, JSValueRef v, JSValueRef *e), (c, v, e)) \
    F(void, JSGarbageCollect, (JSContextRef c), (c)) \
    /* JSBasePrivate.h: the heap's figures (`heapSize`, `extraMemorySize`, ...) as an object. */ \
    F(JSObjectRef, JSGetMemoryUsageStatistics, (JSContextRef c), (c))

#define SETTEE_JSC_FIELD(ret, name, params, args) ret (*name) params;
struct settee_jsc_table { SETTEE_JSC_FUNCTIONS(SETTEE_JSC_FIELD) };

// The table lives in a function: Swift emits an inline function's own statics, not a
// header's file-scope ones.
static inline struct settee_jsc_table *settee_jsc(void) {
    static struct settee_jsc_table table;
    return &table;
}

static inline void (**settee_jsc_scavenger(void))(void) {
    static void (*scavenger)(void);
    return &scavenger;
}

/* Returns the pages JavaScriptCore's allocator freed to the system now, if it can. */
static inline void settee_jsc_release_free_memory(void) {
    if (*settee_jsc_scavenger()) (*settee_jsc_scavenger())();
}

#define SETTEE_JSC_CALL(ret, name, params, args) static inline ret name params { return settee_jsc()->name args; }
SETTEE_JSC_FUNCTIONS(SETTEE_JSC_CALL)

// Opens `path` and finds every function: 1 when all are there, else 0 (and nothing
// may be called). Called once, before any engine is made.
static inline int settee_jsc_load(const char *path) {
    void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!library) return 0;
#define SETTEE_JSC_LOAD(ret, name, params, args) \
    settee_jsc()->name = (ret (*) params)dlsym(library, #name); \
    if (!settee_jsc()->name) return 0;
    SETTEE_JSC_FUNCTIONS(SETTEE_JSC_LOAD)
    // Optional: WTF::releaseFastMallocFreeMemory() (exported by WebKitGTK's library, a C++
    // name): bmalloc/libpas keep freed pages resident until their scavenger runs.
    *settee_jsc_scavenger() = (void (*)(void))dlsym(library, "_ZN3WTF27releaseFastMallocFreeMemoryEv");
    return 1;
}

/* Hands the heap glibc kept after engines were released back to the system
   (malloc_trim(3)): a stopped memory bomb's buffers would otherwise stay resident. */
static inline int settee_malloc_trim(void) { return malloc_trim(0); }

/* Caps how many arenas glibc's malloc makes (mallopt(3) M_ARENA_MAX): 1 on success. */
static inline int settee_cap_malloc_arenas(int count) { return mallopt(M_ARENA_MAX, count); }

/* The first two fields of /proc/self/statm (pages): fscanf is variadic. */
static inline int settee_read_statm(FILE *file, long *size, long *resident) {
    return fscanf(file, "%ld %ld", size, resident);
}
