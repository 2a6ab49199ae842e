// Runs workload.js in JavaScriptCore (Debian's libjavascriptcoregtk-4.1, as Settee does)
// and prints start-up time, the workload's time and the process's peak RSS.
#include <JavaScriptCore/JavaScript.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
    FILE *f = fopen(argv[1], "rb");
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    char *text = malloc(size + 1);
    fread(text, 1, size, f);
    text[size] = 0;
    double t0 = now_ms();
    JSGlobalContextRef context = JSGlobalContextCreate(NULL);
    double startup = now_ms() - t0;
    JSStringRef script = JSStringCreateWithUTF8CString(text);
    JSValueRef exception = NULL;
    JSValueRef result = JSEvaluateScript(context, script, NULL, NULL, 1, &exception);
    if (exception || !result) { fprintf(stderr, "workload failed\n"); return 1; }
    double elapsed = JSValueToNumber(context, result, NULL);
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    printf("JavaScriptCore start-up %.2f ms, map %.0f ms (%.0f docs/s), peak RSS %ld MB\n", startup, elapsed,
           100000 / (elapsed / 1000), usage.ru_maxrss / 1024);
    return 0;
}
