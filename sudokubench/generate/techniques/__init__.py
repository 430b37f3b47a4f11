"""Human solving techniques over candidate sets, each finding one logged `Step` at a time.

Every technique is a function `find_*(board)` that returns the first `Step` it can make, or
None, without changing the board; `Board.apply` makes the step. The rater
(`generate/rating.py`) tries them from the simplest up. They work on every shape (rows,
columns and boxes are all units of N cells; rectangular boxes are fine). One module per
family, each describing its techniques:

- `singles`: naked and hidden singles, pointing pairs/triples, box/line reduction;
- `subsets`: naked and hidden pairs, triples, quads;
- `fish`: X-Wing, Swordfish, Jellyfish, finned and sashimi X-Wing and Swordfish;
- `single_digit`: skyscraper, two-string kite, turbot fish, empty rectangle, simple colouring;
- `wings`: XY-Wing, XYZ-Wing, W-Wing, remote pair;
- `uniqueness`: unique rectangles types 1-4, hidden rectangle, BUG+1 (unique puzzles only);
- `chains`: X-chains, XY-chains, AICs and discontinuous nice loops;
- `als`: ALS-XZ, ALS-XY-Wing, Sue de Coq;
- `forcing`: forcing chains and nets (contradiction, cell and unit forcing), then trial.
"""

from sudokubench.generate.techniques.als import find_als_xy_wing, find_als_xz, find_sue_de_coq
from sudokubench.generate.techniques.board import Board, Step, bits
from sudokubench.generate.techniques.chains import find_aic, find_x_chain, find_xy_chain
from sudokubench.generate.techniques.fish import (
    find_finned_swordfish,
    find_finned_x_wing,
    find_jellyfish,
    find_swordfish,
    find_x_wing,
)
from sudokubench.generate.techniques.forcing import find_forcing, find_trial
from sudokubench.generate.techniques.single_digit import (
    find_empty_rectangle,
    find_simple_colouring,
    find_skyscraper,
    find_turbot_fish,
    find_two_string_kite,
)
from sudokubench.generate.techniques.singles import (
    find_box_line,
    find_hidden_single,
    find_naked_single,
    find_pointing,
)
from sudokubench.generate.techniques.subsets import (
    find_hidden_pair,
    find_hidden_quad,
    find_hidden_triple,
    find_naked_pair,
    find_naked_quad,
    find_naked_triple,
)
from sudokubench.generate.techniques.uniqueness import (
    find_bug_plus_one,
    find_hidden_rectangle,
    find_unique_rectangle,
)
from sudokubench.generate.techniques.wings import (
    find_remote_pair,
    find_w_wing,
    find_xy_wing,
    find_xyz_wing,
)

__all__ = [
    "Board",
    "Step",
    "bits",
    "find_aic",
    "find_als_xy_wing",
    "find_als_xz",
    "find_box_line",
    "find_bug_plus_one",
    "find_empty_rectangle",
    "find_finned_swordfish",
    "find_finned_x_wing",
    "find_forcing",
    "find_hidden_pair",
    "find_hidden_quad",
    "find_hidden_rectangle",
    "find_hidden_single",
    "find_hidden_triple",
    "find_jellyfish",
    "find_naked_pair",
    "find_naked_quad",
    "find_naked_single",
    "find_naked_triple",
    "find_pointing",
    "find_remote_pair",
    "find_simple_colouring",
    "find_skyscraper",
    "find_sue_de_coq",
    "find_swordfish",
    "find_trial",
    "find_turbot_fish",
    "find_two_string_kite",
    "find_unique_rectangle",
    "find_w_wing",
    "find_x_chain",
    "find_x_wing",
    "find_xy_chain",
    "find_xy_wing",
    "find_xyz_wing",
]
