"""DataFrames from the extension module's columns."""
import numpy as np
import pandas as pd


def frame(columns):
    """A DataFrame from {name: array or (codes, names)}, in the given column order.

    A text column comes as codes into a table of names, so that a million rows
    cross from C++ as integers; here it becomes a column of str, as pandas
    reads the CSV file's.
    """
    data = {}
    for name, column in columns.items():
        if isinstance(column, tuple):
            codes, names = column
            table = np.array(names, dtype=object) if names else np.array([], dtype=object)
            data[name] = table[codes] if len(codes) else np.array([], dtype=object)
        else:
            data[name] = column
    return pd.DataFrame(data)
