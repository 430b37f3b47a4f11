"""The 9x9 kernel of the `native` backend: per-digit bands of 27 bits, compiled by numba.

The general kernel (`native_kernel.py`, `native_search.py`) walks peer and segment tables cell
by cell, the same code for every shape. On 9x9 this one does a band's work in a few integer
operations, the idea of the band-wise solvers (JCZSolve, fsss2), written anew for numba:

- State: for each digit d and band b (three rows), `F[3d + b]`, the 27 cells of the band
  where d is still a candidate (bit 9r + c: row r of the band, column c); and `F[27 + b]`,
  the band's cells not yet placed. A level of the search is a block of `BLOCK` int64 words.
  Cell 27b + p of the grid (row-major) is bit p of band b.
- A digit's update (`digit`): its three bands' triads (row of the band x box: 9 bits) are
  reduced to the union of the permutations they hold (a band's digit takes one triad in each
  row and each box; table `T_SHRINK`, the cells of those triads): pointing and claiming
  inside the band in one lookup, and a contradiction when none is left. Across the bands,
  through the bands' column projections: a box whose digit lies in one column takes that
  column from the other bands (pointing down a stack), a column left to one band keeps that
  band's box to it (claiming), a column with no place is a contradiction. Then its singles:
  a row, box or column of the digit with one cell left places the digit there (hidden
  singles, and the cells already placed).
- Naked singles per band from "seen once / seen twice" over the nine digits; a cell with no
  candidate is a contradiction.
- Placing digit d at a cell (`place`) clears the cell in the other digits and the cell's row,
  box (`ROWBOX`) and column in d; every digit-band touched is marked for an update (bit
  4d + b of a set). Propagation runs the updates and the naked singles to a fixpoint
  (`settle`).
- Branching on a cell with two candidates when there is one (else the fewest), the one whose
  row, column and box have the most open cells and cells with two candidates (`branch`),
  on an explicit stack of blocks; the last digit of a cell reuses the parent's block. Of a
  two-candidate cell's digits the one with more places in the cell's row, column and box is
  tried first (`places`); other cells' digits in increasing order. Resumable every `budget`
  nodes like the general kernel's search (same state array, return codes and counters), so
  the deadline stays cooperative.

Bit counts and the index of a set bit are LLVM's ctpop and cttz (`_count_ones`,
`_trailing_zeros`: one instruction each on x86-64 with popcnt and bmi1); a band's triads are
a `pext` (`_pack_triads`; a multiply and shifts without BMI2), a set of columns' cells a
multiply (`columns`), and a row's cells counted by column a `pdep` (`_spread_nine`, four shifts
without BMI2), so the hot path reads only the tables that hold real rules (`T_SHRINK`,
`T_LOCK`, `T_CLAIM`; int32). Some steps are LLVM vectors, written as IR (generic
vector types, so any x86-64 compiles them: SSE2 registers at least, AVX2 or AVX-512 ones where
the CPU has them): a band's rows and boxes with one cell at most (`_unit_alone`, eight 32-bit
lanes, their cells then from `T_UNITS`), the cells seen by one, two and three digits in all
three bands at once (`_seen`, a 4-word load a digit), and a band's given cells (`_given_cells`,
32 bytes compared with 0: `start` then branches once a given, not once a cell).

A full grid is a solution: each placement removed the digit from the cell's peers, and a cell
is only placed with a digit it still holds.

numba's cache checks `search` against this file only: the constants imported from
`native_kernel.py` (the state layout, return codes) are compiled in, so after changing them
clear the cache as that module's docstring says.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import carray, cfunc, njit, types
from numba.extending import intrinsic

from sudokubench.solvers.native_band_layout import (
    BAD,
    BAND,
    BAND_STATE_SIZE,
    BLOCK,
    BOX0,
    CELL_MASK,
    COLUMN_SPREAD,
    ENTRY_WORDS,
    GIVENS_AT,
    LEVEL_MASK,
    LEVELS,
    ROW_TRIADS,
    ROWS_AT,
    S_BUDGET,
    S_DRAIN,
    S_KEEP,
    S_LIMIT,
    T_CLAIM,
    T_LOCK,
    T_ROWBOX,
    T_SHRINK,
    T_UNITS,
    TABLE_AT,
    TRIAD_FIRST,
    band_table_values,
)
from sudokubench.solvers.native_band_layout import STATE_SIZE as LAYOUT_STATE_SIZE
from sudokubench.solvers.native_kernel import (
    ADVANCE,
    BACKTRACKS,
    COUNT,
    DONE,
    FINISHED,
    FROM,
    FULL,
    GUESSES,
    HIDDEN,
    LIMIT,
    LOCKED,
    MAX_DEPTH,
    MODE,
    NODES,
    PAUSED,
    SAVED,
    START,
    STATE_SIZE,
    inlined,
)

#: The layout module counts the general kernel's state words without importing numba.
assert STATE_SIZE == LAYOUT_STATE_SIZE


def band_tables() -> np.ndarray:
    """The band kernel's lookup tables as one flat int32 array (offsets `T_*`): 8.6 KB."""
    return np.array(band_table_values(), dtype=np.int32)


def _has_bmi2() -> bool:
    """Whether numba compiles for a CPU with BMI2 (`pdep`): the host's features unless numba's
    configuration names a CPU or features (`NUMBA_CPU_NAME`, `NUMBA_CPU_FEATURES`)."""
    from llvmlite import binding
    from numba.core import config

    if config.CPU_FEATURES is not None:
        return "+bmi2" in config.CPU_FEATURES.split(",")
    if config.CPU_NAME is not None:
        return False
    try:
        return bool(binding.get_host_cpu_features().get("bmi2"))
    except RuntimeError:  # (features unknown on this host)
        return False


#: `_spread_nine`'s steps without BMI2: (shift, mask), each x = (x | x << shift) & mask.
SPREAD_STEPS = (
    (24, 0x000000FF000000FF),
    (12, 0x000F000F000F000F),
    (6, 0x0303030303030303),
    (3, 0x1111111111111111),
)


@intrinsic
def _spread_nine(typingctx, m):
    """The 9-bit `m` with bit c moved to bit 4c (a 4-bit counter a column, `spread`): one
    `pdep` with the mask 0x111111111 where numba compiles for BMI2, else four shifts, ORs and
    ANDs (`SPREAD_STEPS`); no table."""
    if not isinstance(m, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        value = context.cast(builder, args[0], signature.args[0], types.int64)
        value = builder.and_(value, ir.Constant(i64, 511))
        if _has_bmi2():
            pdep = builder.module.declare_intrinsic(
                "llvm.x86.bmi.pdep.64", fnty=ir.FunctionType(i64, [i64, i64])
            )
            return builder.call(pdep, [value, ir.Constant(i64, 0x111111111)])
        for shift, mask in SPREAD_STEPS:
            value = builder.or_(value, builder.shl(value, ir.Constant(i64, shift)))
            value = builder.and_(value, ir.Constant(i64, mask))
        return value

    return types.int64(m), codegen


def _lanes(builder, values, kind):
    """An LLVM vector constant of `kind` (an `ir.VectorType`) holding `values`."""
    return ir.Constant(kind, [ir.Constant(kind.element, v) for v in values])


@intrinsic
def _seen(typingctx, f, o):
    """Each band's cells seen by at least one, two and three of the nine digits of the block at
    offset o of `f`: (once, twice, thrice) of band 0, then of bands 1 and 2. The three bands
    of a digit are three words in a row (o + 3d), so a 4-word vector load a digit (its fourth
    lane the next digit's band 0, dropped) does the three bands' ORs and ANDs at once: nine
    loads and 27 vector operations for the 27 loads and 81 operations of one band at a time.
    Generic LLVM vectors (two SSE2 registers or one AVX2 register each)."""
    if not isinstance(f, types.Array):
        return None

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        vec = ir.VectorType(i64, 4)
        array = context.make_array(signature.args[0])(context, builder, value=args[0])
        at = context.cast(builder, args[1], signature.args[1], types.int64)
        base = builder.gep(array.data, [at])
        once = twice = thrice = ir.Constant(vec, None)
        for d in range(9):
            ptr = builder.bitcast(builder.gep(base, [ir.Constant(i64, 3 * d)]), vec.as_pointer())
            m = builder.load(ptr, align=8)
            thrice = builder.or_(thrice, builder.and_(twice, m))
            twice = builder.or_(twice, builder.and_(once, m))
            once = builder.or_(once, m)
        out = []
        for b in range(3):
            lane = ir.Constant(ir.IntType(32), b)
            out += [builder.extract_element(v, lane) for v in (once, twice, thrice)]
        return context.make_tuple(builder, signature.return_type, out)

    return types.UniTuple(types.int64, 9)(f, o), codegen


@intrinsic
def _column_singles(typingctx, x0, x1, x2):
    """The columns (9 bits) holding exactly one cell of the three bands `x0`, `x1`, `x2`:
    "seen once / seen twice" over the nine rows, the three bands in three 32-bit lanes of one
    vector (the fourth empty): each band's rows seen once and twice, then across the bands
    the pairwise ANDs by two lane rotations and the lanes ORed together. Generic LLVM
    vectors (one SSE2 register), for the nine-step scalar chain of shifts, ANDs and ORs."""
    if not all(isinstance(x, types.Integer) for x in (x0, x1, x2)):
        return None

    def codegen(context, builder, signature, args):
        i32 = ir.IntType(32)
        vec = ir.VectorType(i32, 4)
        v = ir.Constant(vec, None)
        for lane, (value, kind) in enumerate(zip(args, signature.args, strict=True)):
            word = builder.trunc(context.cast(builder, value, kind, types.int64), i32)
            v = builder.insert_element(v, word, ir.Constant(i32, lane))

        def lanes(value):
            return ir.Constant(vec, [ir.Constant(i32, value)] * 4)

        r0 = builder.and_(v, lanes(511))
        r1 = builder.and_(builder.lshr(v, lanes(9)), lanes(511))
        r2 = builder.lshr(v, lanes(18))
        once = builder.or_(r0, r1)
        twice = builder.or_(builder.and_(r0, r1), builder.and_(once, r2))
        once = builder.or_(once, r2)

        def rotate(value, by):
            mask = [ir.Constant(i32, k) for k in ((by, (1 + by) % 3, (2 + by) % 3, 3))]
            return builder.shuffle_vector(value, value, ir.Constant(vec, mask))

        twice = builder.or_(twice, builder.and_(once, rotate(once, 1)))
        for half in (2, 1):
            mask = [ir.Constant(i32, (k + half) % 4) for k in range(4)]
            twice = builder.or_(twice, builder.shuffle_vector(twice, twice, ir.Constant(vec, mask)))
            once = builder.or_(once, builder.shuffle_vector(once, once, ir.Constant(vec, mask)))
        single = builder.and_(once, builder.xor(twice, lanes(-1)))
        out = builder.extract_element(single, ir.Constant(i32, 0))
        return builder.zext(out, ir.IntType(64))

    return types.int64(x0, x1, x2), codegen


#: A band's three rows and three boxes (`_unit_alone`'s lanes; the last two lanes empty).
UNITS = (511, 511 << 9, 511 << 18, BOX0, BOX0 << 3, BOX0 << 6, 0, 0)


@intrinsic
def _unit_alone(typingctx, x):
    """The rows (bits 0-2) and boxes (bits 3-5) of a band where the 27-bit `x` has one cell
    at most: the band ANDed with its six units in the lanes of an 8 x 32-bit vector, each
    lane tested (`m & (m - 1) == 0`), the tests' mask as an integer (`vpcmp` into a mask
    register and `kmov` with AVX-512, `vmovmskps` with AVX2). `x & T_UNITS[mask]` is then the
    band's row and box singles: one table load where the lanes' horizontal OR (three
    shuffles and ORs, the lane-crossing ones 3 cycles each) was, on the digit update's path.
    Generic LLVM vectors (one AVX2 register, two SSE2 ones)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        i32 = ir.IntType(32)
        vec = ir.VectorType(i32, 8)
        value = builder.trunc(context.cast(builder, args[0], signature.args[0], types.int64), i32)
        v = builder.insert_element(ir.Constant(vec, ir.Undefined), value, ir.Constant(i32, 0))
        v = builder.shuffle_vector(v, v, ir.Constant(vec, None))
        v = builder.and_(v, _lanes(builder, UNITS, vec))
        rest = builder.and_(v, builder.add(v, ir.Constant(vec, [ir.Constant(i32, -1)] * 8)))
        alone = builder.icmp_unsigned("==", rest, ir.Constant(vec, None))
        mask = builder.bitcast(alone, ir.IntType(8))
        return builder.and_(builder.zext(mask, ir.IntType(64)), ir.Constant(ir.IntType(64), 63))

    return types.int64(x), codegen


@intrinsic
def _pack_triads(typingctx, y):
    """The bits 3i of the 27-bit `y` packed to bits i (`triads`): one `pext` with the mask
    `TRIAD_FIRST` where numba compiles for BMI2, else a multiply and shifts (no two products
    overlap, so no carry): the nine bits sit three apart, times 21 a row's three land side by
    side."""
    if not isinstance(y, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        value = context.cast(builder, args[0], signature.args[0], types.int64)
        if _has_bmi2():  # (`pext` reads the mask's bits only: no AND first)
            pext = builder.module.declare_intrinsic(
                "llvm.x86.bmi.pext.64", fnty=ir.FunctionType(i64, [i64, i64])
            )
            return builder.call(pext, [value, ir.Constant(i64, TRIAD_FIRST)])
        value = builder.and_(value, ir.Constant(i64, TRIAD_FIRST))
        g = builder.lshr(builder.mul(value, ir.Constant(i64, 21)), ir.Constant(i64, 4))
        g = builder.and_(g, ir.Constant(i64, ROW_TRIADS))
        g = builder.or_(
            g,
            builder.or_(
                builder.lshr(g, ir.Constant(i64, 6)), builder.lshr(g, ir.Constant(i64, 12))
            ),
        )
        return builder.and_(g, ir.Constant(i64, 511))

    return types.int64(y), codegen


@intrinsic
def _count_ones(typingctx, m):
    """The number of set bits of the int64 `m`: LLVM's ctpop, one instruction (popcnt) where
    the CPU has it, where the arithmetic popcount takes a dozen operations and a multiply."""
    if not isinstance(m, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        value = context.cast(builder, args[0], signature.args[0], types.int64)
        return builder.ctpop(value)

    return types.int64(m), codegen


@intrinsic
def _trailing_zeros(typingctx, m):
    """The number of zero bits below the lowest set bit of the int64 `m` (not 0): LLVM's cttz,
    one instruction (tzcnt or bsf)."""
    if not isinstance(m, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        value = context.cast(builder, args[0], signature.args[0], types.int64)
        return builder.cttz(value, ir.Constant(ir.IntType(1), 1))

    return types.int64(m), codegen


@intrinsic
def _given_cells(typingctx, givens, b):
    """The cells of band b that hold a given (27 bits) in the byte array `givens` (81 cells,
    row-major, and at least 5 bytes after them): the band's 27 bytes and 5 more as one 32-byte
    vector, compared with 0, the compare's mask as an integer (`vpcmpb` into a mask register
    and `kmov` with AVX-512, `pmovmskb` with SSE2 and AVX2). Generic LLVM vectors."""
    if not isinstance(givens, types.Array) or not isinstance(b, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        i8 = ir.IntType(8)
        vec = ir.VectorType(i8, 32)
        array = context.make_array(signature.args[0])(context, builder, value=args[0])
        band = context.cast(builder, args[1], signature.args[1], types.int64)
        at = builder.mul(band, ir.Constant(ir.IntType(64), 27))
        ptr = builder.bitcast(builder.gep(array.data, [at]), vec.as_pointer())
        held = builder.icmp_unsigned("!=", builder.load(ptr, align=1), ir.Constant(vec, None))
        mask = builder.zext(builder.bitcast(held, ir.IntType(32)), ir.IntType(64))
        return builder.and_(mask, ir.Constant(ir.IntType(64), BAND))

    return types.int64(givens, b), codegen


@intrinsic
def _borrowed(typingctx, a):
    """The array `a` without its reference count (a NULL meminfo): for the kernel's own use
    of an argument its caller holds for the whole call. numba counts references of every array
    passed to a helper, and an inlined helper's counts stay in the machine code (a locked
    increment and decrement of the count a call: tens of cycles each); on a borrowed array
    those find no count and return at once."""
    if not isinstance(a, types.Array):
        return None

    def codegen(context, builder, signature, args):
        array = context.make_array(signature.args[0])(context, builder, value=args[0])
        array.meminfo = context.get_constant_null(types.MemInfoPointer(types.voidptr))
        array.parent = context.get_constant_null(types.pyobject)
        return array._getvalue()

    return a(a), codegen


@inlined
def low_index(bit: int) -> int:
    """The index of the single set bit of `bit` (below 2**27)."""
    return _trailing_zeros(bit)


@inlined
def bits27(m: int) -> int:
    """The number of set bits of `m` (below 2**32)."""
    return _count_ones(m)


@inlined
def columns(v: int) -> int:
    """The cells of the columns in the 9-bit set `v`, in a band (27 bits): one multiply."""
    return v * COLUMN_SPREAD


@inlined
def triads(x: int) -> int:
    """The triads of a band holding a cell of the 27-bit `x` (bit 3r + k: row r, box k):
    each triad's three bits ORed onto its first, then those nine bits (every third) packed
    (`_pack_triads`: one `pext`); no table."""
    return _pack_triads(x | x >> 1 | x >> 2)


#: Above every word of every block (`LEVEL_MASK`'s blocks): an offset in the blocks ANDed with
#: it is the same offset, and LLVM then knows it is not negative.
OFFSET_MASK = (LEVEL_MASK + 1) * BLOCK - 1


#: Every digit-band to update (`place`'s set: bit 4d + b for band b of digit d, four bits a
#: digit so that a digit is its lowest bit's index shifted, not divided by three).
ALL_DIRTY = 0x777777777


@inlined
def place(f, o, t, d, b, bit, dirty) -> int:
    """Place digit d at cell `bit` of band b (block at offset o); the updated dirty set.

    Without a branch a digit (which digits hold the cell is what the branch predictor cannot
    guess): every digit's band loses the cell and is marked when it held it, then d gets its
    cell back and loses the cell's row, box and column."""
    o &= OFFSET_MASK  # (its indices not negative: no wraparound checks)
    nbit = ~bit
    p = low_index(bit)
    for e in range(9):
        i = o + 3 * e + b
        m = f[i]
        f[i] = m & nbit
        dirty |= ((m >> p) & 1) << (4 * e + b)
    col = ~columns(1 << (p % 9))
    f[o + 3 * d] &= col
    f[o + 3 * d + 1] &= col
    f[o + 3 * d + 2] &= col
    f[o + 3 * d + b] = (f[o + 3 * d + b] & ~t[T_ROWBOX + p]) | bit
    f[o + 27 + b] &= nbit
    return dirty | (7 << 4 * d)


@inlined
def digit(f, o, t, d, bands, hidden, locked) -> tuple[int, int, int]:
    """The update of digit d whose bands in the 3-bit set `bands` changed (module docstring):
    -1 on a contradiction, else the digit-bands to update again (a set of bits 4d + b); and
    the counters `hidden` and `locked` (the hidden singles placed, the candidates removed by
    the locked rules) with this update's added. Counters in registers, not in the state
    array: a store there could alias the blocks, and the loads after it would be redone."""
    o &= OFFSET_MASK  # (not negative: LLVM drops numba's wraparound checks of its indices)
    base = (o + 3 * d) & OFFSET_MASK
    x0 = f[base]
    x1 = f[base + 1]
    x2 = f[base + 2]
    # Triads of the changed bands, reduced to the permutations they hold.
    if bands & 1:
        s = t[T_SHRINK + triads(x0)]
        if s == 0:
            return -1, hidden, locked
        x0 &= s
    if bands & 2:
        s = t[T_SHRINK + triads(x1)]
        if s == 0:
            return -1, hidden, locked
        x1 &= s
    if bands & 4:
        s = t[T_SHRINK + triads(x2)]
        if s == 0:
            return -1, hidden, locked
        x2 &= s
    # Columns across the bands.
    p0 = (x0 | x0 >> 9 | x0 >> 18) & 511
    p1 = (x1 | x1 >> 9 | x1 >> 18) & 511
    p2 = (x2 | x2 >> 9 | x2 >> 18) & 511
    if p0 | p1 | p2 != 511:
        return -1, hidden, locked
    # A box whose digit lies in one column takes it from the other bands (pointing down).
    lock0 = t[T_LOCK + p0]
    lock1 = t[T_LOCK + p1]
    lock2 = t[T_LOCK + p2]
    again = 0
    if (lock0 & (p1 | p2)) | (lock1 & (p0 | p2)) | (lock2 & (p0 | p1)):
        x0 &= ~columns(lock1 | lock2)
        x1 &= ~columns(lock0 | lock2)
        x2 &= ~columns(lock0 | lock1)
        again = 7
        p0 = (x0 | x0 >> 9 | x0 >> 18) & 511
        p1 = (x1 | x1 >> 9 | x1 >> 18) & 511
        p2 = (x2 | x2 >> 9 | x2 >> 18) & 511
        if p0 | p1 | p2 != 511:
            return -1, hidden, locked
    # A column left to one band keeps that band's box to it (claiming).
    c0 = t[T_CLAIM + (p0 & ~(p1 | p2))]
    c1 = t[T_CLAIM + (p1 & ~(p0 | p2))]
    c2 = t[T_CLAIM + (p2 & ~(p0 | p1))]
    if (c0 | c1 | c2) & BAD:
        return -1, hidden, locked
    if (x0 & c0) | (x1 & c1) | (x2 & c2):
        again |= (1 if x0 & c0 else 0) | (2 if x1 & c1 else 0) | (4 if x2 & c2 else 0)
        x0 &= ~c0
        x1 &= ~c1
        x2 &= ~c2
    if x0 != f[base] or x1 != f[base + 1] or x2 != f[base + 2]:
        locked += bits27(f[base] ^ x0) + bits27(f[base + 1] ^ x1) + bits27(f[base + 2] ^ x2)
    f[base] = x0
    f[base + 1] = x1
    f[base + 2] = x2
    # Singles: a column's, a row's or a box's one cell (`_column_singles`; `_unit_alone`, then
    # `T_UNITS`).
    colone = columns(_column_singles(x0, x1, x2))
    dirty = again << 4 * d
    rowbox = bands | again  # the bands whose rows and boxes may hold new singles
    for b in range(3):
        x = f[base + b]
        solo = x & colone
        if rowbox >> b & 1:  # a row or a box with one cell left
            solo |= x & t[T_UNITS + _unit_alone(x)]
        solo &= f[o + 27 + b]
        while solo:
            bit = solo & -solo
            solo ^= bit
            if f[base + b] & bit:
                hidden += 1
                dirty = place(f, o, t, d, b, bit, dirty)
            # else: placed in this loop in a peer; the next update finds the contradiction
    return dirty, hidden, locked


@inlined
def settle(f, o, t, dirty, hidden, locked) -> tuple[int, int, int]:
    """Digit updates and naked singles to a fixpoint; the open cells, or -1; and the
    counters `hidden` and `locked` with the fixpoint's added (`digit`)."""
    o &= OFFSET_MASK
    while True:
        while dirty:
            d = low_index(dirty) >> 2
            bands = (dirty >> 4 * d) & 7
            dirty ^= bands << 4 * d
            more, hidden, locked = digit(f, o, t, d, bands, hidden, locked)
            if more < 0:
                return -1, hidden, locked
            dirty |= more
        placed = False
        once0, twice0, _, once1, twice1, _, once2, twice2, _ = _seen(f, o)
        for b in range(3):
            unplaced = f[o + 27 + b]
            if unplaced == 0:
                continue
            if placed:  # a placement in an earlier band: this band's digits changed
                once = 0
                twice = 0
                for d in range(9):
                    m = f[o + 3 * d + b]
                    twice |= once & m
                    once |= m
            else:
                once = once0 if b == 0 else (once1 if b == 1 else once2)
                twice = twice0 if b == 0 else (twice1 if b == 1 else twice2)
            if once != BAND:
                return -1, hidden, locked
            single = unplaced & ~twice
            while single:
                bit = single & -single
                single ^= bit
                for d in range(9):
                    if f[o + 3 * d + b] & bit:
                        dirty = place(f, o, t, d, b, bit, dirty)
                        placed = True
                        break
        if not placed:
            return bits27(f[o + 27]) + bits27(f[o + 28]) + bits27(f[o + 29]), hidden, locked


@inlined
def spread(m) -> int:
    """The cells of the 27-bit `m` counted by column: 4 bits a column (at most 9 each)."""
    return _spread_nine(m) + _spread_nine(m >> 9) + _spread_nine(m >> 18)


@inlined
def branch(f, o, t) -> int:
    """The cell to branch on (27b + p): among the cells with two candidates (else with the
    fewest), the one with the best score 3 x (open cells in its row, column and box) + 4 x
    (for each of its two digits, the cells with two candidates there that hold the digit:
    each would lose a candidate, and so be placed, on one branch or the other). At limit 2
    on top1465 and top95: 18.0 and 15.0 digits tried a puzzle, against 22.2 and 24.0 with
    the first term alone."""
    best = -1
    fewest = 10
    score = -1
    _, _, thrice0, _, _, thrice1, _, _, thrice2 = _seen(f, o)
    two0 = f[o + 27] & ~thrice0  # the open cells of each band with two candidates or fewer
    two1 = f[o + 28] & ~thrice1
    two2 = f[o + 29] & ~thrice2
    colpack = spread(f[o + 27]) + spread(f[o + 28]) + spread(f[o + 29])
    twopack = spread(two0) + spread(two1) + spread(two2)
    for b in range(3):
        unplaced = f[o + 27 + b]
        if unplaced == 0:
            continue
        twos = two0 if b == 0 else (two1 if b == 1 else two2)
        two = twos
        if two:
            if fewest > 2:
                fewest = 2
                score = -1
            while two:
                bit = two & -two
                two ^= bit
                p = low_index(bit)
                peers = t[T_ROWBOX + p]
                busy = bits27(unplaced & peers) + ((colpack >> 4 * (p % 9)) & 15)
                # Each two-candidate peer counts at most twice in `shared` (the column's
                # count includes the cell itself): a cell that cannot beat the best so far
                # is passed over without finding its digits (the same choice, cheaper).
                pairs = bits27(twos & peers) + ((twopack >> 4 * (p % 9)) & 15)
                if 3 * busy + 8 * pairs <= score:
                    continue
                column = columns(1 << (p % 9))
                held = 0  # the cell's two digits, found without a branch a digit
                for d in range(9):
                    held |= ((f[o + 3 * d + b] >> p) & 1) << d
                shared = 0
                while held:  # twice
                    d = low_index(held)
                    held &= held - 1
                    shared += bits27(f[o + 3 * d + b] & twos & peers)
                    shared += bits27(f[o + 3 * d] & two0 & column)
                    shared += bits27(f[o + 3 * d + 1] & two1 & column)
                    shared += bits27(f[o + 3 * d + 2] & two2 & column)
                here = 3 * busy + 4 * shared
                if here > score:
                    score = here
                    best = 27 * b + p
        elif fewest > 2:
            while unplaced:
                bit = unplaced & -unplaced
                unplaced ^= bit
                c = 0
                for d in range(9):
                    if f[o + 3 * d + b] & bit:
                        c += 1
                if c < fewest:
                    fewest = c
                    best = 27 * b + low_index(bit)
    return best


@inlined
def places(f, o, d, b, p) -> int:
    """The places of digit d in the row, the column and the box of cell p of band b (block
    at offset o), the cell counted in each: the candidates that placing d there removes, and
    three. Of a two-candidate cell's digits, the one with more is tried first: at limit 1
    (the first solution) that found it after 8.2 digits tried a puzzle on top95 against 9.4
    for the lower digit first and 9.3 for the one with fewer places (the natural guess: a
    digit with few places left in a unit is likelier to be there); top1465 10.5 against 10.6,
    17clue 0.78 against 0.81, hardest.txt 4.6 against 4.8. The propagation of the branch
    that removes more decides sooner whether it holds."""
    column = columns(1 << (p % 9))
    x = f[o + 3 * d + b]
    row = bits27(x & (511 << 9 * (p // 9)))
    box = bits27(x & (BOX0 << 3 * (p % 9 // 3)))
    stack = bits27(f[o + 3 * d] & column) + bits27(f[o + 3 * d + 1] & column)
    return row + box + stack + bits27(f[o + 3 * d + 2] & column)


@njit(cache=True)
def digits_of(f, o, out, at) -> None:
    """Write the digits of a solved block into `out` from `at` on (row-major cells)."""
    for d in range(9):
        for b in range(3):
            x = f[o + 3 * d + b]
            while x:
                bit = x & -x
                x ^= bit
                out[at + 27 * b + low_index(bit)] = d + 1


@njit(cache=True)
def start(f, t, givens) -> bool:
    """Level 0 from the givens, each placed (not yet propagated); False when two conflict.

    A function of its own, called once a search: nothing is gained by inlining it into
    `search`, and it stays out of the fixpoint's code that LLVM optimises there.
    """
    for i in range(27):
        f[i] = BAND
    for b in range(3):
        f[27 + b] = BAND
    # The givens in row-major order, found by a mask a band (`_given_cells`): a branch a
    # given, not one a cell, whose outcome a new puzzle's givens leave the predictor to guess.
    for b in range(3):
        cells = _given_cells(givens, b)
        while cells:
            bit = cells & -cells
            cells ^= bit
            g = givens[27 * b + low_index(bit)]
            if f[3 * (g - 1) + b] & bit == 0:
                return False
            place(f, 0, t, g - 1, b, bit, 0)
    return True


@inlined
def counted(st, nodes, guesses, backtracks, depth, hidden, locked) -> None:
    """The search's counters, kept in registers during a call, back into its state."""
    st[NODES] = nodes
    st[GUESSES] = guesses
    st[BACKTRACKS] = backtracks
    st[MAX_DEPTH] = depth
    st[HIDDEN] = hidden
    st[LOCKED] = locked


@njit(cache=True)
def search(work, st) -> int:
    """Run (or resume) the search of a 9x9 puzzle; FINISHED, LIMIT, PAUSED or FULL.

    The contract of `native_search.search` (the same state and return codes) with two arrays
    (numba's entry unboxes each argument on every call: an array costs about 100 ns): `work`
    (`work_size` words, a thread's own) holds `LEVELS` blocks, then the branch cell,
    the untried digits and the digit to try first (a bit) of each level, then
    `band_tables()` (at `TABLE_AT`), then the rows for solutions as bytes (at `ROWS_AT`, 81 a
    row); `st` (`BAND_STATE_SIZE` words, a run's own) the state and counters, then the rows to
    fill (`keep`: the first `keep` rows), the limit, the budget, whether to stop when the rows
    are full (`drain`), and the givens (`state`).
    """
    f = _borrowed(work)
    t = f[TABLE_AT:ROWS_AT].view(np.int32)
    st = _borrowed(st)
    keep = st[S_KEEP]
    limit = st[S_LIMIT]
    budget = st[S_BUDGET]
    drain = st[S_DRAIN] != 0
    givens = st[GIVENS_AT:].view(np.uint8)
    branch_at = f[LEVELS * BLOCK : LEVELS * BLOCK + LEVELS]
    todo_at = f[LEVELS * BLOCK + LEVELS : LEVELS * BLOCK + 2 * LEVELS]
    first_at = f[LEVELS * BLOCK + 2 * LEVELS : LEVELS * BLOCK + 3 * LEVELS]
    sols = f[ROWS_AT:].view(np.uint8)
    spent = 0
    if st[MODE] == DONE:
        return FINISHED
    # The counters in registers for the whole call, written back on each return (`counted`).
    nodes = st[NODES]
    guesses = st[GUESSES]
    backtracks = st[BACKTRACKS]
    depth = st[MAX_DEPTH]
    hidden = st[HIDDEN]
    locked = st[LOCKED]
    # The fixpoint (`settle`) has one call site, at the top of the loop: the root's (every
    # digit-band dirty after `start`) and each node's (after its digit's `place`) run the same
    # machine code, which the whole search then keeps warm.
    dirty = 0
    if st[MODE] == START:
        st[MODE] = ADVANCE
        if not start(f, t, givens):
            st[MODE] = DONE
            return FINISHED
        todo_at[0] = 0
        w = 0
        dirty = ALL_DIRTY
        expand = True
    else:
        w = st[FROM] + 1
        expand = False
    while True:
        if expand:
            o = (w & LEVEL_MASK) * BLOCK
            open_cells, hidden, locked = settle(f, o, t, dirty, hidden, locked)
            if open_cells == 0:
                saved = st[SAVED]
                if saved < keep:
                    digits_of(f, o, sols, 81 * saved)
                    st[SAVED] = saved + 1
                st[COUNT] += 1
                if st[COUNT] >= limit:
                    st[FROM] = w - 1
                    counted(st, nodes, guesses, backtracks, depth, hidden, locked)
                    return LIMIT
                if drain and saved + 1 == keep:
                    st[FROM] = w - 1
                    counted(st, nodes, guesses, backtracks, depth, hidden, locked)
                    return FULL
                j = w - 1
            elif open_cells < 0:
                if nodes == 0:  # the root's contradiction: no node tried, none to undo
                    st[MODE] = DONE
                    counted(st, nodes, guesses, backtracks, depth, hidden, locked)
                    return FINISHED
                backtracks += 1
                j = w - 1
            else:
                k = branch(f, o, t) & CELL_MASK
                b = k // 27
                bit = 1 << (k - 27 * b)
                todo = 0
                for d in range(9):
                    if f[o + 3 * d + b] & bit:
                        todo |= 1 << d
                first = todo & -todo
                other = todo ^ first
                if other & (other - 1) == 0:  # two candidates: the one with more places first
                    p = k - 27 * b
                    if places(f, o, low_index(other), b, p) > places(f, o, low_index(first), b, p):
                        first = other
                branch_at[w] = k
                todo_at[w] = todo
                first_at[w] = first
                guesses += 1
                j = w
        else:
            j = w - 1
        while j >= 0 and todo_at[j] == 0:
            j -= 1
        if j < 0:
            st[MODE] = DONE
            counted(st, nodes, guesses, backtracks, depth, hidden, locked)
            return FINISHED
        if spent >= budget:
            st[FROM] = j
            counted(st, nodes, guesses, backtracks, depth, hidden, locked)
            return PAUSED
        spent += 1
        nodes += 1
        todo = todo_at[j]
        low = first_at[j] if todo & first_at[j] else todo & -todo
        todo ^= low
        todo_at[j] = todo
        k = branch_at[j] & CELL_MASK
        if todo:  # more digits to try here: the child gets a copy of the block
            w = j + 1
            src = (j & LEVEL_MASK) * BLOCK
            dst = (w & LEVEL_MASK) * BLOCK
            for i in range(30):
                f[dst + i] = f[src + i]
            depth = max(depth, w)
        else:  # the last digit: reuse the block
            w = j
        todo_at[w] = 0
        o = (w & LEVEL_MASK) * BLOCK
        b = k // 27
        bit = 1 << (k - 27 * b)
        dirty = place(f, o, t, low_index(low), b, bit, 0)
        expand = True


def state(digits: bytes, keep: int, limit: int, budget: int, drain: bool) -> np.ndarray:
    """A run's state array (`search`'s `st`) for the 81 `digits` (`Grid.digit_bytes`)."""
    head = (0,) * STATE_SIZE + (keep, limit, budget, int(drain))
    data = bytearray(np.array(head, dtype=np.int64).tobytes() + digits + bytes(7))
    return np.frombuffer(data, dtype=np.int64)


#: The int64 word of a `bytes` object where its data starts (CPython's layout: the object's
#: header, then the bytes): the entry for kept machine code reads its addresses there.
SELF_AT = (bytes.__basicsize__ - 1) // 8
#: CPython's `Py_IncRef`, resolved when the machine code is loaded in a Python process.
_py_incref = types.ExternalFunction("Py_IncRef", types.void(types.voidptr))


@intrinsic
def _words(typingctx, address):
    """The int64 `address` as a pointer to int64 words."""
    if not isinstance(address, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], ir.IntType(64).as_pointer())

    return types.CPointer(types.int64)(address), codegen


@intrinsic
def _pointer(typingctx, address):
    """The int64 `address` as an untyped pointer (a Python object's, returned to CPython)."""
    if not isinstance(address, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], ir.IntType(8).as_pointer())

    return types.voidptr(address), codegen


def entry(me, unused):
    """`search` as a CPython function of no arguments (`METH_NOARGS`), bound to one work array
    and one state: `me`, the function's `self`, is a `bytes` object holding (from `SELF_AT`)
    the addresses of the work array and of the state, then of the ints 0 to 3 (the return
    codes, returned with a new reference). Compiled by `compile_entry` as a C callback."""
    code = search(
        carray(_words(me[SELF_AT]), (ENTRY_WORDS,)),
        carray(_words(me[SELF_AT + 1]), (BAND_STATE_SIZE,)),
    )
    result = _pointer(me[SELF_AT + 2 + code])
    _py_incref(result)
    return result


def compile_entry() -> tuple[bytes, str]:
    """`entry` compiled (with `search` from numba's cache, or compiled first) into one object
    file of machine code, and the name of its symbol (`native_object` keeps and loads it).

    A C callback of its own, not cached by numba: it is compiled only when the kept object is
    missing (`native.warm`), a second or two of CPU once per machine."""
    compiled = cfunc(types.voidptr(types.CPointer(types.int64), types.voidptr))(entry)
    _, kind, data = compiled._library.serialize_using_object_code()
    assert kind == "object"
    return data[0], compiled.native_name
