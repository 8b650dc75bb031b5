/* errors.c — the public error API (merino_last_error, merino_set_error_handler) over sys's error
 * reporting (src/sys/error.c), which keeps the messages and calls the handler. */
#include "core/core.h"
#include "merino/internal/layer.h"

/* The handler types must stay one: sys calls the program's merino_error_fn as an mrn_error_fn. */
_Static_assert(__builtin_types_compatible_p(merino_error_fn, mrn_error_fn),
               "merino_error_fn and mrn_error_fn differ");

const char *merino_last_error(void) { return mrn_error_text(); }

void merino_set_error_handler(merino_error_fn *fn, void *arg) { mrn_error_set_handler(fn, arg); }

/* The layers built apart (merino_omp, include/merino/internal/layer.h) report through the same
 * channel: merino_last_error, the program's handler. */
void merino__error(const char *message) { mrn_error("%s", message); }
void merino__fatal(const char *message) { mrn_fatal("%s", message); }
