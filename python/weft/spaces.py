"""Minimal observation and action spaces with Gymnasium's interface.

Gymnasium is not in Debian 12, so weft does not import it; these classes
have the attributes and methods agents use (shape, dtype, n, sample, seed,
contains). gymnasium.spaces equivalents are built by weft.env.to_gymnasium_space.
"""
import numpy as np


class Space:
    def __init__(self, shape, dtype, seed=None):
        self.shape = shape
        self.dtype = np.dtype(dtype) if dtype is not None else None
        self.np_random = np.random.default_rng(seed)

    def seed(self, seed=None):
        self.np_random = np.random.default_rng(seed)
        return [seed]


class Discrete(Space):
    """The integers 0 .. n-1."""

    def __init__(self, n, seed=None):
        super().__init__((), np.int64, seed)
        self.n = int(n)

    def sample(self, mask=None):
        """A uniform draw; with `mask` (n values, 1 = allowed), among the allowed ones."""
        if mask is not None:
            allowed = np.flatnonzero(np.asarray(mask))
            if len(allowed):
                return np.int64(self.np_random.choice(allowed))
        return np.int64(self.np_random.integers(self.n))

    def contains(self, x):
        try:
            return 0 <= int(x) < self.n and int(x) == x
        except (TypeError, ValueError):
            return False

    def __repr__(self):
        return f"Discrete({self.n})"


class Box(Space):
    """Arrays of `shape` with every value in [low, high]."""

    def __init__(self, low, high, shape, dtype=np.float32, seed=None):
        super().__init__(tuple(shape), dtype, seed)
        self.low = np.full(self.shape, low, dtype=self.dtype)
        self.high = np.full(self.shape, high, dtype=self.dtype)

    def sample(self):
        """Uniform where bounded; exponential above a finite low bound otherwise."""
        low = self.low.astype(np.float64)
        high = self.high.astype(np.float64)
        bounded = np.isfinite(low) & np.isfinite(high)
        out = np.where(bounded, self.np_random.uniform(np.where(bounded, low, 0), np.where(bounded, high, 1)),
                       np.where(np.isfinite(low), low, 0) + self.np_random.exponential(size=self.shape))
        if np.issubdtype(self.dtype, np.integer):
            out = np.floor(out)
        return out.astype(self.dtype)

    def contains(self, x):
        x = np.asarray(x)
        return x.shape == self.shape and bool(np.all(x >= self.low)) and bool(np.all(x <= self.high))

    def __repr__(self):
        return f"Box({self.low.min()}, {self.high.max()}, {self.shape}, {self.dtype})"


class Dict(Space):
    """A dict of named spaces."""

    def __init__(self, spaces, seed=None):
        super().__init__(None, None, seed)
        self.spaces = dict(spaces)

    def seed(self, seed=None):
        for i, space in enumerate(self.spaces.values()):
            space.seed(None if seed is None else seed + i)
        return [seed]

    def sample(self):
        return {name: space.sample() for name, space in self.spaces.items()}

    def contains(self, x):
        return isinstance(x, dict) and x.keys() == self.spaces.keys() and all(
            space.contains(x[name]) for name, space in self.spaces.items())

    def __getitem__(self, name):
        return self.spaces[name]

    def __repr__(self):
        return "Dict(" + ", ".join(f"{k}: {v}" for k, v in self.spaces.items()) + ")"
