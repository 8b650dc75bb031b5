/* error.c — merino's error reporting: one line per error, "merino: <what> ... <how to fix it>",
 * kept per thread (mrn_error_text), and printed on stderr or passed to the handler set with
 * mrn_error_set_handler. The public API over it (merino_last_error, merino_set_error_handler) is
 * the core's, src/core/errors.c. Cold code only. */
#include "sys/sys.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* Per thread, like errno: concurrent failing calls each see their own message. */
static __thread char mrn_last_error_text[512];
static __thread bool mrn_quiet;

/* The program's handler; read and written under the lock (errors are rare). */
static pthread_mutex_t mrn_handler_lock = PTHREAD_MUTEX_INITIALIZER;
static mrn_error_fn *mrn_handler;
static void *mrn_handler_arg;

const char *mrn_error_text(void) { return mrn_last_error_text; }

void mrn_error_set_handler(mrn_error_fn *fn, void *arg) {
    pthread_mutex_lock(&mrn_handler_lock);
    mrn_handler = fn;
    mrn_handler_arg = arg;
    pthread_mutex_unlock(&mrn_handler_lock);
}

bool mrn_error_quiet(bool quiet) {
    bool old = mrn_quiet;
    mrn_quiet = quiet;
    return old;
}

static void mrn_format(const char *fmt, va_list ap) {
    int n = snprintf(mrn_last_error_text, sizeof mrn_last_error_text, "merino: ");
    vsnprintf(mrn_last_error_text + n, sizeof mrn_last_error_text - (size_t)n, fmt, ap);
}

static void mrn_print(void) {
    fprintf(stderr, "%s\n", mrn_last_error_text);
    fflush(stderr);
}

static void mrn_verror(const char *fmt, va_list ap) {
    mrn_format(fmt, ap);
    if (mrn_quiet) return;
    pthread_mutex_lock(&mrn_handler_lock);
    mrn_error_fn *fn = mrn_handler;
    void *arg = mrn_handler_arg;
    pthread_mutex_unlock(&mrn_handler_lock);
    if (fn)
        fn(mrn_last_error_text, arg);
    else
        mrn_print();
}

void mrn_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    mrn_verror(fmt, ap);
    va_end(ap);
}

void mrn_fatal(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    mrn_format(fmt, ap);
    va_end(ap);
    mrn_print(); /* the program ends here: say why where it can be seen, whatever the handler */
    abort();
}
