// Runs workload.js in SpiderMonkey 102 (Debian's libmozjs-102, what CouchDB's
// SpiderMonkey builds use) and prints start-up time, the workload's time and the
// process's peak RSS.
#include <js/CompilationAndEvaluation.h>
#include <js/Initialization.h>
#include <js/SourceText.h>
#include <jsapi.h>
#include <cstdio>
#include <string>
#include <sys/resource.h>
#include <time.h>

static double now_ms() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static JSClass global_class = {"global", JSCLASS_GLOBAL_FLAGS, &JS::DefaultGlobalClassOps};

int main(int argc, char **argv) {
    FILE *f = fopen(argv[1], "rb");
    std::string text;
    char buffer[65536];
    size_t n;
    while ((n = fread(buffer, 1, sizeof buffer, f)) > 0) text.append(buffer, n);
    double t0 = now_ms();
    if (!JS_Init()) return 1;
    JSContext *cx = JS_NewContext(JS::DefaultHeapMaxBytes);
    if (!cx || !JS::InitSelfHostedCode(cx)) return 1;
    JS::RealmOptions options;
    JS::RootedObject global(cx, JS_NewGlobalObject(cx, &global_class, nullptr, JS::FireOnNewGlobalHook, options));
    double startup;
    {
        JSAutoRealm realm(cx, global);
        startup = now_ms() - t0;
        JS::CompileOptions compile(cx);
        compile.setFileAndLine("workload.js", 1);
        JS::SourceText<mozilla::Utf8Unit> source;
        if (!source.init(cx, text.data(), text.size(), JS::SourceOwnership::Borrowed)) return 1;
        JS::RootedValue result(cx);
        if (!JS::Evaluate(cx, compile, source, &result)) { fprintf(stderr, "workload failed\n"); return 1; }
        double elapsed = result.toNumber();
        rusage usage;
        getrusage(RUSAGE_SELF, &usage);
        printf("SpiderMonkey 102 start-up %.2f ms, map %.0f ms (%.0f docs/s), peak RSS %ld MB\n", startup, elapsed,
               100000 / (elapsed / 1000), usage.ru_maxrss / 1024);
    }
    JS_DestroyContext(cx);
    JS_ShutDown();
    return 0;
}
