/* sort_ops.c — merino_sort's operations on elements, one table per element size (sort_ops.h). */
#include "algo/algo.h"

#define MRN_SZ 4
#define MRN_OPS mrn_sort_ops_4
#include "algo/sort_ops.h"
#undef MRN_SZ
#undef MRN_OPS

#define MRN_SZ 8
#define MRN_OPS mrn_sort_ops_8
#include "algo/sort_ops.h"
#undef MRN_SZ
#undef MRN_OPS

#define MRN_SZ 16
#define MRN_OPS mrn_sort_ops_16
#include "algo/sort_ops.h"
#undef MRN_SZ
#undef MRN_OPS

#define MRN_SZ 0
#define MRN_OPS mrn_sort_ops_any
#include "algo/sort_ops.h"
#undef MRN_SZ
#undef MRN_OPS
