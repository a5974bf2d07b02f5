"""Intervals for evaluation logs that do not fit in one process: Dask, Spark, Parquet.

``booteval.ci`` reads a table by column names, ``ci(table, y_true="label",
y_pred="pred", clusters="user_id")``, where ``table`` is a pandas, Dask or Spark
DataFrame or a Parquet path or glob. The run is a Poisson bootstrap: every row (or
cluster) gets an independent Poisson(1) weight that is a pure function of the seed, its
key and the replicate, so each partition computes a small exact state on its own and the
merged states give the same numbers for any partitioning, engine or number of workers.

* **Histogram tier** (accuracy and the confusion-matrix metrics): partitions count their
  distinct input combinations; the driver runs the exact Poisson bootstrap over the
  resulting cells.
* **Row tier** (means, mean losses, other sums of per-row statistics): partitions return
  the exact fixed-point weighted sums of their statistics for every replicate, from a
  compiled kernel.

A pandas DataFrame runs the same code in the caller's process, so a slice checked locally
gives numbers bit-identical to the cluster run on the same rows.
"""

from .engines import source_kind
from .run import TABLE_METHODS, frame_ci, frame_route
from .states import FRACTION_BITS, HistogramState, StateSpec, SumState, merge_states

__all__ = [
    "FRACTION_BITS",
    "TABLE_METHODS",
    "HistogramState",
    "StateSpec",
    "SumState",
    "frame_ci",
    "frame_route",
    "merge_states",
    "source_kind",
]
