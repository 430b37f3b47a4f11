/*
 * A Sudoku solver for sudokubench's exec: protocol, in plain C99.
 *
 * Build (the one command):
 *     cc -O2 -o examples/solver examples/solver.c
 * Use:
 *     sudokubench compare puzzles/top95.txt --backends fast,exec:'examples/solver'
 *
 * Protocol: one puzzle a line on stdin (line form: '1'-'9' then 'A'-'Z' for digits above 9,
 * '.' or '0' for blanks; N*N characters for an NxN grid, N up to 25, boxes as wide as
 * possible: 6x6 -> 2x3); one line on stdout per puzzle: the solution in the same form, or
 * "0" when there is none (conflicting givens included). stdout is flushed after every line.
 *
 * Algorithm: depth-first search with one bitmask of used digits per row, column and box; at
 * each step it fills the empty cell with the fewest candidates (a cell with none fails at
 * once). No timeout of its own: sudokubench kills it when time is up.
 */
#include <stdio.h>
#include <string.h>

#define MAXN 25
#define MAXCELLS (MAXN * MAXN)

static int n, box_rows, box_cols, cells;
static int grid[MAXCELLS];
static unsigned rows[MAXN], cols[MAXN], boxes[MAXN];

static int box_of(int k) {
    int r = k / n, c = k % n;
    return (r / box_rows) * box_rows + c / box_cols;
}

static int popcount(unsigned x) {
    int count = 0;
    for (; x; x &= x - 1) count++;
    return count;
}

static int search(void) {
    int best = -1, best_count = n + 1;
    unsigned best_free = 0, all = (n == 32) ? ~0u : ((1u << n) - 1);
    for (int k = 0; k < cells; k++) {
        if (grid[k]) continue;
        unsigned free = all & ~(rows[k / n] | cols[k % n] | boxes[box_of(k)]);
        int count = popcount(free);
        if (count < best_count) {
            best = k, best_count = count, best_free = free;
            if (count <= 1) break;
        }
    }
    if (best < 0) return 1; /* every cell filled */
    int r = best / n, c = best % n, b = box_of(best);
    for (int d = 0; d < n; d++) {
        unsigned bit = 1u << d;
        if (!(best_free & bit)) continue;
        grid[best] = d + 1;
        rows[r] |= bit, cols[c] |= bit, boxes[b] |= bit;
        if (search()) return 1;
        rows[r] &= ~bit, cols[c] &= ~bit, boxes[b] &= ~bit;
    }
    grid[best] = 0;
    return 0;
}

static int digit_of(char ch) {
    if (ch == '.' || ch == '0') return 0;
    if (ch >= '1' && ch <= '9') return ch - '0';
    if (ch >= 'A' && ch <= 'Z') return ch - 'A' + 10;
    if (ch >= 'a' && ch <= 'z') return ch - 'a' + 10;
    return -1;
}

/* Reads the puzzle in `line`; returns 0 if it has no solution (or cannot be read). */
static int solve_line(const char *line) {
    cells = (int)strlen(line);
    for (n = 1; n * n < cells; n++) {}
    if (n * n != cells || n > MAXN || n < 1) return 0;
    for (box_rows = 1; box_rows * box_rows <= n; box_rows++) {}
    for (box_rows--; n % box_rows; box_rows--) {}
    box_cols = n / box_rows;
    memset(rows, 0, sizeof rows), memset(cols, 0, sizeof cols), memset(boxes, 0, sizeof boxes);
    for (int k = 0; k < cells; k++) {
        int d = digit_of(line[k]);
        if (d < 0 || d > n) return 0;
        grid[k] = d;
        if (!d) continue;
        unsigned bit = 1u << (d - 1);
        int r = k / n, c = k % n, b = box_of(k);
        if ((rows[r] | cols[c] | boxes[b]) & bit) return 0; /* conflicting givens */
        rows[r] |= bit, cols[c] |= bit, boxes[b] |= bit;
    }
    return search();
}

int main(void) {
    static char line[4 * MAXCELLS];
    const char *symbols = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (solve_line(line)) {
            for (int k = 0; k < cells; k++) putchar(symbols[grid[k] - 1]);
            putchar('\n');
        } else {
            puts("0");
        }
        fflush(stdout);
    }
    return 0;
}
