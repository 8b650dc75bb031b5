/* order.c — the topological order of a dependency graph under construction, kept right edge by edge
 * so that an edge that would close a cycle is refused when it is added — within a budget, beyond
 * which the graph is checked whole, once, before its next run.
 *
 * The order is a list of the nodes whose labels grow along it (order maintenance: a node placed
 * between two others takes a label between theirs; when there is no room, the labels of a range
 * around it are spread out again, as in Bender, Cole, Demaine, Farach-Colton and Zito, "Two
 * simplified algorithms for maintaining order in a list", ESA 2002: O(log n) amortized).
 *
 * An edge from -> to that goes forward in the order needs nothing. One that goes back runs two
 * searches, alternating a node at a time: forward from `to` through the nodes before `from`, and
 * backward from `from` through the nodes after `to`. If they meet, the edge closes a cycle: its
 * path is reported and nothing changes. Otherwise the first to finish has found every node it
 * reaches in the part between the two, and only those move: the forward set (`to` and what follows
 * it there) to just after `from`, or the backward set (`from` and what precedes it there) to just
 * before `to`, each keeping its inner order. Every other edge stays forward: a node of the set and
 * one outside it that are joined by an edge either do not change sides of each other, or the
 * outside one is outside the part between, on the side the set does not cross.
 *
 * Each search visits at most about twice as many nodes as the smaller of the two sets: a chain
 * or a grid made in reverse dependency order costs O(1) per edge (a search of the whole part
 * between the two nodes, as Pearce and Kelly's, costs O(n) there: O(n^2) per graph). But no
 * incremental order is linear in every case (edges in random order over a large graph cost more
 * per edge as the graph grows), so the searches draw on a credit: each node and edge added gives
 * the graph mrn_graph_search_credit steps (a node visited or an edge followed). A search that
 * would overdraw it stops, changing nothing, and the graph is no longer checked: its edges are
 * then added as they come, and the next run first checks the whole graph (Kahn's topological
 * sort, linear in its size), refusing to run it if it has a cycle, which the message names. A
 * graph that passes is in order and checked again. Building a graph thus costs O(n + m) steps,
 * plus the relabelling's O(log n) per node moved. */
#include "flow.h"

#include <stdio.h>
#include <stdlib.h>

unsigned mrn_graph_search_credit = 8;

/* ---- labels -------------------------------------------------------------------------------------- */

#define MRN_LABEL_BITS 62
#define MRN_LABEL_END ((uint64_t)1 << MRN_LABEL_BITS) /* labels are in [1, MRN_LABEL_END) */
#define MRN_LABEL_GAP ((uint64_t)1 << 32)             /* between nodes appended */
/* A range of 2^i labels is spread out again only if it holds at most (2 / MRN_DENSITY)^i nodes:
 * 1.375 lets the 2^62 labels hold 10^10 nodes. */
#define MRN_DENSITY 1.375

/* Gives x, just linked between two nodes whose labels leave no room, a label: spreads out the
 * labels of the smallest aligned range around it that is sparse enough. */
__attribute__((noinline)) static void mrn_relabel(merino_graph *g, merino_graph_node *x) {
    uint64_t anchor = x->prev ? x->prev->label : x->next->label;
    double limit = 1;
    for (unsigned i = 1; i <= MRN_LABEL_BITS; i++) {
        limit *= 2 / MRN_DENSITY;
        uint64_t size = (uint64_t)1 << i, base = anchor & ~(size - 1);
        merino_graph_node *first = x, *last = x;
        uint64_t count = 1;
        while (first->prev && first->prev->label >= base) first = first->prev, count++;
        while (last->next && last->next->label - base < size) last = last->next, count++;
        if (count >= size || (double)count > limit) continue;
        uint64_t gap = size / (count + 1), label = base;
        for (merino_graph_node *y = first;; y = y->next) {
            label += gap; /* base + gap >= 1: 0 stays free, before the first node */
            y->label = label;
            if (y == last) break;
        }
        g->steps += count;
        return;
    }
    mrn_fatal("a dependency graph ran out of labels for its topological order (%u nodes)", g->n);
}

/* Links x (not in the list) right after p (NULL: first). */
static void mrn_link(merino_graph *g, merino_graph_node *p, merino_graph_node *x) {
    merino_graph_node *q = p ? p->next : g->first;
    x->prev = p;
    x->next = q;
    if (p) p->next = x;
    else g->first = x;
    if (q) q->prev = x;
    else g->last = x;
}

/* Links x (not in the list) right after p (NULL: first) and labels it. */
static void mrn_link_after(merino_graph *g, merino_graph_node *p, merino_graph_node *x) {
    mrn_link(g, p, x);
    merino_graph_node *q = x->next;
    uint64_t lo = p ? p->label : 0, hi = q ? q->label : MRN_LABEL_END;
    if (!q && hi - lo > MRN_LABEL_GAP)
        x->label = lo + MRN_LABEL_GAP; /* last: leave room for what comes after it too */
    else if (hi - lo >= 2)
        x->label = lo + (hi - lo) / 2;
    else
        mrn_relabel(g, x);
}

static void mrn_unlink(merino_graph *g, merino_graph_node *x) {
    if (x->prev) x->prev->next = x->next;
    else g->first = x->next;
    if (x->next) x->next->prev = x->prev;
    else g->last = x->prev;
}

void mrn_order_init(merino_graph *g) { g->checked = true; }

void mrn_order_append(merino_graph *g, merino_graph_node *x) {
    g->credit += mrn_graph_search_credit;
    if (g->checked) mrn_link_after(g, g->last, x);
    else mrn_link(g, g->last, x); /* labels wait for the check */
}

unsigned long long mrn_graph_steps(const merino_graph *g) { return g->steps; }

bool mrn_graph_checked(const merino_graph *g) { return g->checked; }

/* ---- moving a set of nodes --------------------------------------------------------------------- */

static int mrn_by_label(const void *a, const void *b) {
    uint64_t x = (*(merino_graph_node *const *)a)->label, y = (*(merino_graph_node *const *)b)->label;
    return x < y ? -1 : x > y;
}

/* Moves the k nodes of set, in their order, to just after p. p is not in the set and stays where
 * it is: every node of the set is on one side of it. */
static void mrn_move_after(merino_graph *g, merino_graph_node *p, merino_graph_node **set, unsigned k) {
    qsort(set, k, sizeof *set, mrn_by_label);
    for (unsigned i = 0; i < k; i++) mrn_unlink(g, set[i]);
    for (unsigned i = 0; i < k; i++) {
        mrn_link_after(g, p, set[i]);
        p = set[i];
    }
}

/* ---- cycles ------------------------------------------------------------------------------------ */

/* The path of n nodes as text, "a" -> "b" -> ... -> "a" (back to its first node): up to 12 nodes by
 * name; a longer path by its first 6 and last 5. */
static void mrn_cycle_text(char *text, size_t size, merino_graph_node *const *path, unsigned n) {
    size_t len = 0;
    for (unsigned i = 0; i < n && len < size; i++) {
        if (n > 12 && i == 6) {
            len += (size_t)snprintf(text + len, size - len, "... (%u nodes) -> ", n - 11);
            i = n - 5;
        }
        len += (size_t)snprintf(text + len, size - len, "\"%s\" -> ", path[i]->name);
    }
    if (len < size) snprintf(text + len, size - len, "\"%s\"", path[0]->name);
}

/* Reports the cycle the edge from -> to would close. The searches met at the edge a -> b: a was
 * reached forward from to (its via leads back to to), b backward from from (its via leads on to
 * from). The path to -> ... -> a -> b -> ... -> from is written into g->work (the searches are
 * over; it has room for every node). */
__attribute__((cold, noinline)) static void mrn_cycle(merino_graph *g, merino_graph_node *from, merino_graph_node *to,
                                                     merino_graph_node *a, merino_graph_node *b) {
    merino_graph_node **path = g->work;
    unsigned n = 0;
    for (merino_graph_node *x = a; x; x = x->via) n++;
    for (unsigned i = n; i-- > 0; a = a->via) path[i] = a;
    for (; b; b = b->via) path[n++] = b;
    char text[400];
    mrn_cycle_text(text, sizeof text, path, n);
    mrn_error("merino_graph_edge(\"%s\", \"%s\") would close a cycle: %s; a dependency graph "
              "must be acyclic: remove one of these edges",
              from->name, to->name, text);
}

/* ---- an edge ----------------------------------------------------------------------------------- */

/* The search of an edge overdrew the graph's credit: the graph is no longer checked. */
__attribute__((cold, noinline)) static bool mrn_order_give_up(merino_graph *g, uint64_t spent) {
    g->steps += spent;
    g->credit = 0;
    g->checked = false;
    return true;
}

bool mrn_order_edge(merino_graph *g, merino_graph_node *from, merino_graph_node *to) {
    g->credit += mrn_graph_search_credit;
    if (!g->checked || from->label < to->label) return true;
    if (g->stamp > UINT32_MAX - 2) { /* the stamps wrapped: forget the old marks */
        for (unsigned i = 0; i < g->n; i++) g->nodes[i]->mark = 0;
        g->stamp = 0;
    }
    g->stamp += 2;
    const uint32_t fw = g->stamp, bw = g->stamp + 1; /* marks 0 and 1 are never stamps */
    /* The forward set grows up from work[0], the backward one down from work[n - 1]: they hold
     * different nodes (a node of both is a meeting), so they fit. */
    merino_graph_node **fq = g->work, **bq = g->work + g->n - 1;
    unsigned nf = 0, nb = 0, fi = 0, bi = 0;
    uint64_t spent = 0, credit = g->credit; /* a node visited or an edge followed: a step */
    to->mark = fw;
    to->via = NULL;
    fq[nf++] = to;
    from->mark = bw;
    from->via = NULL;
    bq[-(long)nb++] = from;
    for (;;) {
        if (fi == nf) { /* the forward set is complete: it moves after from */
            mrn_move_after(g, from, fq, nf);
            break;
        }
        merino_graph_node *u = fq[fi++];
        if ((spent += 1 + u->nsucc) > credit) return mrn_order_give_up(g, spent);
        for (unsigned i = 0; i < u->nsucc; i++) {
            merino_graph_node *y = u->succ[i];
            if (y->mark == bw) {
                mrn_cycle(g, from, to, u, y);
                return false;
            }
            if (y->mark == fw || y->label >= from->label) continue; /* seen, or beyond the part between */
            y->mark = fw;
            y->via = u;
            fq[nf++] = y;
        }
        if (bi == nb) { /* the backward set is complete: it moves before to */
            mrn_move_after(g, to->prev, bq - (nb - 1), nb);
            break;
        }
        u = bq[-(long)bi++];
        if ((spent += 1 + u->npred) > credit) return mrn_order_give_up(g, spent);
        for (unsigned i = 0; i < u->npred; i++) {
            merino_graph_node *y = u->pred[i];
            if (y->mark == fw) {
                mrn_cycle(g, from, to, y, u);
                return false;
            }
            if (y->mark == bw || y->label <= to->label) continue; /* seen, or beyond the part between */
            y->mark = bw;
            y->via = u;
            bq[-(long)nb++] = y;
        }
    }
    g->steps += spent;
    g->credit -= spent;
    return true;
}

/* ---- the whole graph --------------------------------------------------------------------------- */

/* Reports a cycle among the nodes Kahn's sort left (each has a predecessor left: mark > 0).
 * Walking back from any of them along predecessors left must come to a node twice; the walk's
 * part from there is a cycle, backwards. The walk goes in g->work from index at. */
__attribute__((cold, noinline)) static void mrn_check_cycle(merino_graph *g, unsigned at, const char *what) {
    for (unsigned i = 0; i < g->n; i++) g->nodes[i]->via = NULL; /* via: on the walk */
    merino_graph_node *x = NULL;
    for (unsigned i = 0; i < g->n && !x; i++)
        if (g->nodes[i]->mark > 0) x = g->nodes[i];
    unsigned n = at;
    while (!x->via) {
        x->via = x;
        g->work[n++] = x;
        merino_graph_node *y = NULL;
        for (unsigned i = 0; i < x->npred && !y; i++)
            if (x->pred[i]->mark > 0) y = x->pred[i];
        x = y;
    }
    unsigned start = n;
    while (g->work[--start] != x) {}
    for (unsigned i = start, j = n - 1; i < j; i++, j--) { /* forwards */
        merino_graph_node *t = g->work[i];
        g->work[i] = g->work[j];
        g->work[j] = t;
    }
    char text[400];
    mrn_cycle_text(text, sizeof text, g->work + start, n - start);
    mrn_error("%s: the graph has a cycle: %s; a dependency graph must be acyclic: make it again without "
              "one of these edges (its edges came in an order too costly to check one by one, so the "
              "graph was checked whole before this run)",
              what, text);
}

bool mrn_order_check(merino_graph *g, const char *what) {
    merino_graph_node **q = g->work;
    unsigned nq = 0;
    for (unsigned i = 0; i < g->n; i++) {
        merino_graph_node *x = g->nodes[i];
        x->mark = x->npred;
        if (x->mark == 0) q[nq++] = x;
    }
    for (unsigned k = 0; k < nq; k++) {
        merino_graph_node *x = q[k];
        g->steps += 1 + x->nsucc;
        for (unsigned i = 0; i < x->nsucc; i++)
            if (--x->succ[i]->mark == 0) q[nq++] = x->succ[i];
    }
    if (nq < g->n) {
        mrn_check_cycle(g, nq, what);
        return false;
    }
    /* In order again: labels spread evenly over the order Kahn's sort found. */
    uint64_t gap = MRN_LABEL_END / ((uint64_t)g->n + 1);
    if (gap > MRN_LABEL_GAP) gap = MRN_LABEL_GAP;
    g->first = g->last = NULL;
    for (unsigned k = 0; k < nq; k++) {
        mrn_link(g, g->last, q[k]);
        q[k]->label = (k + 1) * gap;
        q[k]->mark = 0;
    }
    g->stamp = 0;
    g->checked = true;
    return true;
}
