"""weft.policies and weft.bounds: `weft policies` and `weft bounds`."""
import pandas as pd

from . import _weft
from ._inputs import input_args


def policies():
    """The registered policies: a list of dicts (name, description, source, params),
    the built-in ones, then those registered from Python."""
    return _weft._policies() + _weft._python_policies()


def bounds(workload):
    """The lower bounds of every job alone on the cluster (DAGPS Figure 9), as
    `weft bounds`: a DataFrame with job, cplen, twork, modcp, newlb (seconds)."""
    path, text, _ = input_args(workload, None)
    return pd.DataFrame(_weft._bounds(path, text))
