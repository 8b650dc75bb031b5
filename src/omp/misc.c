/* misc.c — the `error` directive (GOMP_error, GOMP_warning) and the thread affinity display
 * (omp_display_affinity, omp_capture_affinity, OMP_AFFINITY_FORMAT's fields). */
#include "omp/omp_layer.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int omp_get_num_teams(void);
int omp_get_team_num(void);
int omp_get_num_threads(void);
int omp_get_ancestor_thread_num(int);

static void mo_error_directive(const char *what, const char *msg, size_t len) {
    if (msg == NULL)
        fprintf(stderr, "merino: %serror directive encountered\n", what);
    else if (len == (size_t)-1)
        fprintf(stderr, "merino: %serror directive encountered: %s\n", what, msg);
    else
        fprintf(stderr, "merino: %serror directive encountered: %.*s\n", what, (int)len, msg);
    fflush(stderr);
}

MO_ABI void GOMP_warning(const char *msg, size_t len) { mo_error_directive("", msg, len); }

MO_ABI void GOMP_error(const char *msg, size_t len) {
    mo_error_directive("fatal ", msg, len);
    exit(EXIT_FAILURE); /* as libgomp: the program ends with a failure status */
}

/* ---- affinity format -------------------------------------------------------------------------------- */

static pthread_mutex_t mo_format_lock = PTHREAD_MUTEX_INITIALIZER;

void mo_affinity_format_set(const char *fmt, size_t len) {
    mo_env_init();
    pthread_mutex_lock(&mo_format_lock);
    if (len > sizeof mo_g.affinity_format - 1) len = sizeof mo_g.affinity_format - 1;
    memcpy(mo_g.affinity_format, fmt, len);
    mo_g.affinity_format[len] = '\0';
    pthread_mutex_unlock(&mo_format_lock);
}

size_t mo_affinity_format_get(char *buf, size_t size) {
    mo_env_init();
    pthread_mutex_lock(&mo_format_lock);
    size_t n = strlen(mo_g.affinity_format);
    if (size) snprintf(buf, size, "%s", mo_g.affinity_format);
    pthread_mutex_unlock(&mo_format_lock);
    return n;
}

MO_ABI void omp_set_affinity_format(const char *fmt) { mo_affinity_format_set(fmt, strlen(fmt)); }
MO_ABI size_t omp_get_affinity_format(char *buf, size_t size) { return mo_affinity_format_get(buf, size); }

/* The CPUs of the calling thread's affinity mask as a list of ranges ("0-3,6"). */
static void mo_mask_text(char *out, size_t size) {
    cpu_set_t set;
    size_t n = 0;
    out[0] = '\0';
    if (sched_getaffinity(0, sizeof set, &set) != 0) return;
    for (int c = 0; c < CPU_SETSIZE && n + 24 < size; c++) {
        if (!CPU_ISSET(c, &set)) continue;
        int e = c;
        while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, &set)) e++;
        n += (size_t)snprintf(out + n, size - n, n ? ",%d" : "%d", c);
        if (e > c) n += (size_t)snprintf(out + n, size - n, "-%d", e);
        c = e;
    }
}

/* Expands an affinity format (OpenMP 5.0: %t %T %L %n %N %a %H %P %i %A and their long names, an
 * optional 0, . and width) for the calling thread; returns the length it needs. */
size_t mo_affinity_capture(char *buf, size_t size, const char *fmt) {
    char format[256];
    if (fmt == NULL) {
        mo_affinity_format_get(format, sizeof format);
        fmt = format;
    }
    static const struct {
        char c;
        const char *name;
    } fields[] = {{'t', "team_num"}, {'T', "num_teams"}, {'L', "nesting_level"}, {'n', "thread_num"},
                  {'N', "num_threads"}, {'a', "ancestor_tnum"}, {'H', "host"}, {'P', "process_id"},
                  {'i', "native_thread_id"}, {'A', "thread_affinity"}};
    char out[1024];
    size_t n = 0;
    for (const char *p = fmt; *p && n < sizeof out - 1; p++) {
        if (*p != '%') {
            out[n++] = *p;
            continue;
        }
        p++;
        if (*p == '%') {
            out[n++] = '%';
            continue;
        }
        bool zero = false, right = false;
        for (; *p == '0' || *p == '.'; p++) {
            if (*p == '0') zero = true;
            else right = true;
        }
        size_t width = 0;
        while (*p >= '0' && *p <= '9') width = width * 10 + (size_t)(*p++ - '0');
        char c = 0;
        if (*p == '{') {
            const char *end = strchr(p, '}');
            if (!end) break;
            for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
                if ((size_t)(end - p - 1) == strlen(fields[i].name) && strncmp(p + 1, fields[i].name, end - p - 1) == 0)
                    c = fields[i].c;
            p = end;
        } else {
            c = *p;
        }
        char val[512];
        switch (c) {
        case 't': snprintf(val, sizeof val, "%d", omp_get_team_num()); break;
        case 'T': snprintf(val, sizeof val, "%d", omp_get_num_teams()); break;
        case 'L': snprintf(val, sizeof val, "%d", mo_cur && mo_cur->team ? (int)mo_cur->team->level : 0); break;
        case 'n': snprintf(val, sizeof val, "%d", mo_cur ? (int)mo_cur->tnum : 0); break;
        case 'N': snprintf(val, sizeof val, "%d", omp_get_num_threads()); break;
        case 'a': {
            int lvl = mo_cur && mo_cur->team ? (int)mo_cur->team->level : 0;
            snprintf(val, sizeof val, "%d", lvl ? omp_get_ancestor_thread_num(lvl - 1) : -1);
            break;
        }
        case 'H': gethostname(val, sizeof val); val[sizeof val - 1] = '\0'; break;
        case 'P': snprintf(val, sizeof val, "%d", (int)getpid()); break;
        case 'i': snprintf(val, sizeof val, "%ld", (long)syscall(SYS_gettid)); break;
        case 'A': mo_mask_text(val, sizeof val); break;
        default: snprintf(val, sizeof val, "%%%c", *p ? *p : ' '); break;
        }
        /* left-justified by default; '.': right-justified, with zeros when '0' (OpenMP 5.0), which
         * go after a minus sign, as libgomp puts them */
        size_t len = strlen(val), pad = width > len ? width - len : 0, from = 0;
        if (right && zero && pad && val[0] == '-' && n < sizeof out - 1) out[n++] = val[from++];
        for (size_t i = 0; right && i < pad && n < sizeof out - 1; i++) out[n++] = zero ? '0' : ' ';
        for (size_t i = from; i < len && n < sizeof out - 1; i++) out[n++] = val[i];
        for (size_t i = 0; !right && i < pad && n < sizeof out - 1; i++) out[n++] = ' ';
    }
    out[n] = '\0';
    if (size) snprintf(buf, size, "%s", out);
    return n;
}

MO_ABI void omp_display_affinity(const char *fmt) {
    char line[1024];
    size_t n = mo_affinity_capture(line, sizeof line, fmt && fmt[0] ? fmt : NULL);
    fprintf(stderr, "%.*s\n", (int)(n < sizeof line ? n : sizeof line - 1), line);
}

MO_ABI size_t omp_capture_affinity(char *buf, size_t size, const char *fmt) {
    return mo_affinity_capture(buf, size, fmt && fmt[0] ? fmt : NULL);
}
