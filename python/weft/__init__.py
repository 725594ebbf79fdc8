"""weft from Python: simulations as pandas DataFrames, and a scheduling environment.

    import weft
    r = weft.simulate(workload="examples/tpch-small.json", policy="fair", seed=3)
    r.jobs.jct.mean(), r.summary["avg_jct"]

See docs/python.md. The engine is the C++ one `weft sim` runs (the `_weft`
extension module); this package only turns what it returns into DataFrames.
"""
from ._weft import WorkloadError
from .runs import SimulationError, SimulationResult, compare, simulate, sweep
from .catalog import bounds, policies
from .workload import Workload, machines, read_trace
from . import env
from .job_order import DynamicPartition, Fair, Fifo, JobOrderPolicy, register_policy

__all__ = ["SimulationError", "SimulationResult", "WorkloadError", "bounds", "compare", "env", "policies",
           "simulate", "sweep", "Workload", "machines", "read_trace", "DynamicPartition", "Fair", "Fifo", "JobOrderPolicy", "register_policy"]
