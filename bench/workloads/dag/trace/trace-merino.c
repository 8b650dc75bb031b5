/* trace-merino.c — dag-merino.c with each node timed (README.md). */
#include "trace.h"

#include "../dag-merino.c"
