"""What the plotting scripts share: matplotlib without a display, and files that are the same bytes for the
same data (no date or random ids in SVGs), so regenerated pictures diff cleanly.

matplotlib is Debian's python3-matplotlib, run under /usr/bin/python3; pyplot() installs it with apt-get
when it is missing and we are root (the only way the scripts install anything), else says how.
"""
import os
import subprocess
import sys


def pyplot():
    try:
        import matplotlib
    except ImportError:
        if os.geteuid() != 0:
            sys.exit("error: matplotlib is missing: apt-get install python3-matplotlib (as root), "
                     "then run this script with /usr/bin/python3")
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", "python3-matplotlib"],
                       env=env, check=True, stdout=subprocess.DEVNULL)
        import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "weft"
    matplotlib.rcParams["font.size"] = 10
    import matplotlib.pyplot as plt
    return plt


def plain_log_ticks(axis):
    """Labels a log axis 300, 500, 700, 1000 rather than 3 x 10^2."""
    from matplotlib.ticker import FuncFormatter, LogLocator
    axis.set_major_locator(LogLocator(subs=(1.0, 2.0, 3.0, 5.0, 7.0)))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(FuncFormatter(lambda v, _: ""))


def save(fig, path):
    """Writes `fig` to `path` (format from the extension) without a creation date."""
    fig.tight_layout()
    metadata = {"Date": None} if path.endswith(".svg") else {}
    fig.savefig(path, metadata=metadata, dpi=110)
