// trace-tbb.cpp — dag-tbb.cpp with each node timed (README.md).
#define _Alignas alignas
#include "trace.h"

#include "../dag-tbb.cpp"
