/* say.c — messages written straight to stderr with write(2): no allocation, no stdio, no
 * handler, so that code which must not allocate (the allocator) can report. */
#include "sys.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void mrn_vsay(const char *fmt, va_list ap) {
    char line[512];
    int n = snprintf(line, sizeof line, "merino: ");
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof line - 2) len = sizeof line - 2;
    line[len++] = '\n';
    for (size_t off = 0; off < len;) {
        ssize_t w = write(2, line + off, len - off);
        if (w <= 0 && errno != EINTR) break;
        if (w > 0) off += (size_t)w;
    }
}

void mrn_say(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    mrn_vsay(fmt, ap);
    va_end(ap);
}

void mrn_die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    mrn_vsay(fmt, ap);
    va_end(ap);
    abort();
}
