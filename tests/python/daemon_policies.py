"""Policies the daemon tests load with `weftd scheduler --policy py:daemon_policies:CLASS`."""
import weft


class Last(weft.JobOrderPolicy):
    """The last candidate: the reverse of fifo's choice, so its schedule shows who decided."""

    def choose(self, obs):
        return int(obs["mask"].sum()) - 1


class Flaky(weft.JobOrderPolicy):
    """Raises at every other decision, serving the last candidate at the others."""

    def __init__(self, every=2):
        self.every = every
        self.calls = 0

    def choose(self, obs):
        self.calls += 1
        if self.calls % self.every == 1:
            return 1 // 0
        return int(obs["mask"].sum()) - 1


class BadInit(weft.JobOrderPolicy):
    def __init__(self):
        raise RuntimeError("no cluster for me")


NotAClass = 3
