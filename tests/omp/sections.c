/* sections.c — the sections construct: each section runs exactly once, whatever the team's size
 * (more sections than threads and fewer), orphaned and combined (parallel sections), with
 * private, firstprivate, lastprivate (the lexically last section's value) and nowait, and many
 * sections constructs in a row.
 */
#include "omp_test.h"

enum { S = 7 };

static void each_once(void) {
    for (int team = 1; team <= 9; team += 2) {
        atomic_int ran[S] = {0};
        int who[S];
#pragma omp parallel num_threads(team) shared(ran, who)
        {
#pragma omp sections
            {
#pragma omp section
                { atomic_fetch_add(&ran[0], 1); who[0] = omp_get_thread_num(); }
#pragma omp section
                { atomic_fetch_add(&ran[1], 1); who[1] = omp_get_thread_num(); }
#pragma omp section
                { atomic_fetch_add(&ran[2], 1); who[2] = omp_get_thread_num(); }
#pragma omp section
                { atomic_fetch_add(&ran[3], 1); who[3] = omp_get_thread_num(); }
#pragma omp section
                { atomic_fetch_add(&ran[4], 1); who[4] = omp_get_thread_num(); }
#pragma omp section
                { atomic_fetch_add(&ran[5], 1); who[5] = omp_get_thread_num(); }
#pragma omp section
                { atomic_fetch_add(&ran[6], 1); who[6] = omp_get_thread_num(); }
            }
            /* the implicit barrier: every section is done here */
            for (int s = 0; s < S; s++)
                if (atomic_load(&ran[s]) != 1) {
                    fprintf(stderr, "section %d not done at the barrier\n", s);
                    _exit(1);
                }
        }
        for (int s = 0; s < S; s++) {
            CHECK_EQ_INT(atomic_load(&ran[s]), 1);
            CHECK(who[s] >= 0 && who[s] < team);
        }
    }
    OT_SAY("7 sections in teams of 1, 3, 5, 7, 9: each once, done at the barrier");
}

static void clauses(void) {
    int first = 10, last = -1, priv = -5;
    atomic_int sum = 0;
#pragma omp parallel sections firstprivate(first) lastprivate(last) private(priv)
    {
#pragma omp section
        {
            priv = first + 1;
            last = priv;
            atomic_fetch_add(&sum, priv);
        }
#pragma omp section
        {
            priv = first + 2;
            last = priv;
            atomic_fetch_add(&sum, priv);
        }
#pragma omp section
        {
            priv = first + 3;
            last = priv * 100; /* the lexically last section: its value comes out */
            atomic_fetch_add(&sum, priv);
        }
    }
    CHECK_EQ_INT(last, 1300);
    CHECK_EQ_INT(atomic_load(&sum), 36);
    CHECK_EQ_INT(first, 10);
    CHECK_EQ_INT(priv, -5);
    OT_SAY("sections firstprivate, private, lastprivate: right (last %d)", last);
}

/* nowait: a thread leaves its sections without waiting; a barrier then completes them all.
 * Many sections constructs in a row, so that threads run ahead into the next ones. */
static void nowait_in_a_row(void) {
    enum { ROUNDS = 200 };
    static atomic_int ran[ROUNDS][3];
    for (int r = 0; r < ROUNDS; r++)
        for (int s = 0; s < 3; s++) atomic_store(&ran[r][s], 0);
#pragma omp parallel
    {
        for (int r = 0; r < ROUNDS; r++) {
#pragma omp sections nowait
            {
#pragma omp section
                atomic_fetch_add(&ran[r][0], 1);
#pragma omp section
                atomic_fetch_add(&ran[r][1], 1);
#pragma omp section
                atomic_fetch_add(&ran[r][2], 1);
            }
        }
#pragma omp barrier
    }
    for (int r = 0; r < ROUNDS; r++)
        for (int s = 0; s < 3; s++) CHECK_EQ_INT(atomic_load(&ran[r][s]), 1);
    OT_SAY("%d sections nowait constructs in a row: each section once", ROUNDS);
}

int main(void) {
    each_once();
    clauses();
    nowait_in_a_row();
    return 0;
}
