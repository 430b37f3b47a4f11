"""The 9x9 band kernel's layout (`native_band.py`): its constants, its lookup tables and the size
of its work array, without numba.

A process that runs the band kernel from its kept machine code (`native_object`) builds the
kernel's arrays from this module without importing numba; `native_band` compiles these constants
into the kernel. numba's cache checks `native_band.search` against `native_band.py` only: after
changing a constant here, clear the cache as `native_kernel.py`'s docstring says (the kept
machine code is keyed on this file too, and is not loaded after such a change).
"""

from __future__ import annotations

#: The general kernel's state words (`native_kernel.STATE_SIZE`, checked by `native_band`).
STATE_SIZE = 12
#: The rows for solutions the band kernel's entry for kept machine code is compiled for
#: (`native.ROWS`; only the length of its work array's view depends on it).
ENTRY_ROWS = 256

#: int64 words a level of the stack takes: 27 digit-bands, 3 masks of unplaced cells, spare.
BLOCK = 32
#: Stack levels: one per placed guess at most, and the root.
LEVELS = 82
BAND = (1 << 27) - 1
#: Above every level (`LEVELS`): a level ANDed with it is the same level, and LLVM then knows
#: its block's offset is not negative, so numba's check of a negative index (one compare and
#: select an access, and a register for the array's length) folds away.
LEVEL_MASK = 127
#: Above every cell (0-80): the same for a cell, its band and its place in the band.
CELL_MASK = 127
#: A row's 9 bits times this: the same columns in all three rows of a band (`columns`).
COLUMN_SPREAD = 1 | 1 << 9 | 1 << 18
#: The cells of the first box of a band; the second and third are this shifted by 3 and 6.
BOX0 = 7 * COLUMN_SPREAD
#: The first cell of each of a band's nine triads (`triads`).
TRIAD_FIRST = sum(1 << 3 * i for i in range(9))
#: Three bits at the start of each row of a band: a row's triads after `triads`' multiply.
ROW_TRIADS = 7 * COLUMN_SPREAD

# Offsets of the tables in the flat int32 `table` array (`band_tables`).
T_SHRINK = 0  # 512: a band's 9 triads -> the cells of the union of the permutations they hold
T_LOCK = 512  # 512: a band's columns -> those alone in their box (a box in one column)
T_CLAIM = 1024  # 512: columns alone in a band -> the cells of their boxes off them (| BAD)
T_ROWBOX = 1536  # 27: a cell's row and box in its band, itself excluded
T_UNITS = 1563  # 64: a set of a band's rows (bits 0-2) and boxes (bits 3-5) -> their cells
TABLE_SIZE = 1627
#: The flag of `T_CLAIM` for two columns of one box left to one band: a contradiction.
BAD = 1 << 30
#: The band kernel's state array (`search`'s `st`, a run's own): the general kernel's state
#: (`STATE_SIZE` words, the same indices), then the call's rows to fill, limit, budget and
#: whether to stop when the rows are full, then the givens (81 bytes, row-major, 0 for empty).
S_KEEP = STATE_SIZE
S_LIMIT = STATE_SIZE + 1
S_BUDGET = STATE_SIZE + 2
S_DRAIN = STATE_SIZE + 3
GIVENS_AT = STATE_SIZE + 4
BAND_STATE_SIZE = GIVENS_AT + 11
#: Where the work array holds `band_tables()` (int32, in `TABLE_WORDS` int64 words) and the
#: rows for solutions (`search`).
TABLE_AT = LEVELS * BLOCK + 3 * LEVELS
TABLE_WORDS = (TABLE_SIZE + 1) // 2
ROWS_AT = TABLE_AT + TABLE_WORDS


def band_table_values() -> list[int]:
    """The band kernel's lookup tables as one flat list of int32 values (offsets `T_*`)."""
    t = [0] * TABLE_SIZE
    boxes = [BOX0 << 3 * k for k in range(3)]
    perms = [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]
    for tri in range(512):
        keep = 0
        for p in perms:
            bits = sum(1 << (3 * r + p[r]) for r in range(3))
            if tri & bits == bits:
                keep |= bits
        t[T_SHRINK + tri] = sum(
            7 << (9 * (i // 3) + 3 * (i % 3)) for i in range(9) if keep >> i & 1
        )
    for v in range(512):
        groups = [(v >> 3 * k) & 7 for k in range(3)]
        t[T_LOCK + v] = sum(g << 3 * k for k, g in enumerate(groups) if g & (g - 1) == 0)
        claim = 0
        for k, g in enumerate(groups):
            if g & (g - 1):
                claim |= BAD
            elif g:
                claim |= boxes[k] & ~((g << 3 * k) * COLUMN_SPREAD)
        t[T_CLAIM + v] = claim
    for p in range(27):
        r, c = divmod(p, 9)
        t[T_ROWBOX + p] = (511 << 9 * r | boxes[c // 3]) & ~(1 << p)
    units = [511, 511 << 9, 511 << 18, *boxes]
    for k in range(64):
        for i, u in enumerate(units):
            if k >> i & 1:
                t[T_UNITS + k] |= u
    return t


def work_size(rows: int) -> int:
    """The size of the band kernel's work array (int64 words) with `rows` rows for solutions."""
    return ROWS_AT + (81 * rows + 7) // 8


#: The work array's words the entry for kept machine code views (`native_band.entry`).
ENTRY_WORDS = work_size(ENTRY_ROWS)
