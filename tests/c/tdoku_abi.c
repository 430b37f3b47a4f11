/* A small 9x9 Sudoku solver with tdoku's C ABI, for sudokubench's `lib:` tests.
 *
 *   size_t SYMBOL(const char *puzzle, size_t limit, uint32_t configuration,
 *                 char *solution, size_t *num_guesses);
 *
 * puzzle: 81 chars, '1'-'9' or '.'/'0'; returns the number of solutions found, at most
 * `limit`; `solution` gets the first one found (81 chars) whenever the count is >= 1;
 * `num_guesses` counts the guesses (branches past the first candidate of a cell).
 * Depth-first search over bit masks of candidates, fewest-candidates cell first.
 *
 * Variants for the tests, chosen with -D at compile time:
 *   -DSYMBOL=name         the exported name (default TdokuSolverDpllTriadSimd)
 *   -DFILL_AT_LIMIT_1     fill `solution` only when limit == 1 (as tdoku does)
 *   -DWRONG_GRID          answer a wrong grid (the first two cells of the solution swapped)
 *   -DCRASH_ON_CALL=n     dereference NULL on the n-th call (counted from 1)
 *   -DSPIN                loop forever in C
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifndef SYMBOL
#define SYMBOL TdokuSolverDpllTriadSimd
#endif

typedef struct {
    uint16_t row[9], col[9], box[9]; /* digits used, bit d-1 */
    char cells[81];
    size_t found, limit, guesses;
    char first[81];
} Search;

static int box_of(int cell) { return (cell / 27) * 3 + (cell % 9) / 3; }

static void place(Search *s, int cell, int d, int on) {
    uint16_t bit = (uint16_t)(1u << (d - 1));
    if (on) {
        s->row[cell / 9] |= bit; s->col[cell % 9] |= bit; s->box[box_of(cell)] |= bit;
        s->cells[cell] = (char)('0' + d);
    } else {
        s->row[cell / 9] &= (uint16_t)~bit; s->col[cell % 9] &= (uint16_t)~bit;
        s->box[box_of(cell)] &= (uint16_t)~bit;
        s->cells[cell] = '.';
    }
}

static void search(Search *s) {
    int best = -1, best_n = 10;
    uint16_t best_free = 0;
    for (int cell = 0; cell < 81; cell++) {
        if (s->cells[cell] != '.') continue;
        uint16_t free_ = (uint16_t)(~(s->row[cell / 9] | s->col[cell % 9] | s->box[box_of(cell)]) & 0x1ff);
        int n = __builtin_popcount(free_);
        if (n < best_n) { best = cell; best_n = n; best_free = free_; }
        if (n == 0) return;
    }
    if (best < 0) { /* every cell filled */
        if (s->found++ == 0) memcpy(s->first, s->cells, 81);
        return;
    }
    int tried = 0;
    for (int d = 1; d <= 9 && s->found < s->limit; d++) {
        if (!(best_free & (1u << (d - 1)))) continue;
        s->guesses += tried++ > 0;
        place(s, best, d, 1);
        search(s);
        place(s, best, d, 0);
    }
}

size_t SYMBOL(const char *puzzle, size_t limit, uint32_t configuration, char *solution,
              size_t *num_guesses) {
    (void)configuration;
#ifdef CRASH_ON_CALL
    static int calls = 0;
    if (++calls == CRASH_ON_CALL) *(volatile int *)0 = 1;
#endif
#ifdef SPIN
    for (volatile int forever = 1; forever;) {}
#endif
    Search s;
    memset(&s, 0, sizeof s);
    s.limit = limit;
    for (int cell = 0; cell < 81; cell++) {
        char ch = puzzle[cell];
        s.cells[cell] = '.';
        if (ch < '1' || ch > '9') continue;
        uint16_t bit = (uint16_t)(1u << (ch - '1'));
        if ((s.row[cell / 9] | s.col[cell % 9] | s.box[box_of(cell)]) & bit) { /* conflict */
            *num_guesses = 0;
            return 0;
        }
        place(&s, cell, ch - '0', 1);
    }
    if (limit > 0) search(&s);
    *num_guesses = s.guesses;
#ifdef FILL_AT_LIMIT_1
    if (limit != 1) return s.found;
#endif
    if (s.found > 0) {
        memcpy(solution, s.first, 81);
#ifdef WRONG_GRID
        char first = solution[0];
        solution[0] = solution[1];
        solution[1] = first;
#endif
    }
    return s.found;
}
