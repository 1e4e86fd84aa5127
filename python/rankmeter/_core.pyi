# Hand-written stubs of the private C++ module rankmeter._core.
from typing import Optional

import numpy as np
import numpy.typing as npt

has_openmp: bool
exact_limbs: int
exact_shift: int

def max_threads() -> int: ...
def ranking_pass(
    t_indptr: npt.NDArray[np.int64],
    t_items: npt.NDArray[np.int64],
    t_grades: Optional[npt.NDArray[np.float64]],
    r_indptr: Optional[npt.NDArray[np.int64]],
    r_items: npt.NDArray[np.int64],
    r_stride: int,
    r_pad: int,
    r_rowmap: Optional[npt.NDArray[np.int64]],
    col_ints: npt.NDArray[np.int64],
    col_floats: npt.NDArray[np.float64],
    min_relevance: Optional[float],
    empty: int,
    dup_first: bool,
    max_items: int,
    threads: int,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64], npt.NDArray[np.int64], int, tuple[int, int, int]]: ...
