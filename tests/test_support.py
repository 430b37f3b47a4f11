"""The test helpers' own promises: what `Stopwatch` counts as the block's CPU."""

from __future__ import annotations

import gc

from support import Stopwatch


def test_stopwatch_keeps_the_test_process_objects_out_of_the_block_collections():
    before = [[i] for i in range(10_000)]  # (objects of the test process, made before)
    assert gc.get_freeze_count() == 0
    with Stopwatch():
        frozen = gc.get_freeze_count()
        made = [[i] for i in range(1_000)]  # (the block's own, collectable as ever)
        assert gc.is_tracked(made[0])
    assert frozen >= len(before)
    assert gc.get_freeze_count() == 0  # (all back in the collector's care after the block)


def test_stopwatch_unfreezes_when_the_block_raises():
    try:
        with Stopwatch():
            raise ValueError("the block failed")
    except ValueError:
        pass
    assert gc.get_freeze_count() == 0
