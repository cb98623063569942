"""Results as records: attributes named and valued as the CLI's --format json fields."""

import types

__all__ = ["Record", "Plan", "Candidate", "Problem", "Device", "Occupancy", "LoopReport", "wrap"]


class Record(types.SimpleNamespace):
    """A JSON object of the CLI's output: its keys as attributes, in the same order."""

    def to_dict(self):
        """The record as plain dicts and lists (json.dumps gives the CLI's object)."""
        return {key: _plain(value) for key, value in vars(self).items()}


class Candidate(Record):
    """One configuration for one problem: an element of `candidates` in `tileplan tile --format json`."""

    @property
    def feasible(self):
        """No constraint fails (C1-C4)."""
        return not self.failures

    def __repr__(self):
        time = "" if self.predicted_us is None else f", predicted_us={self.predicted_us:.1f}"
        return (f"Candidate(block_m={self.block_m}, block_n={self.block_n}, block_k={self.block_k}, "
                f"stages={self.stages}, threads={self.threads}{time})")


class Problem(Record):
    """The `problem` object: sizes, types, layouts, leading dimensions in effect, warnings."""


class Device(Record):
    """A device preset: every field of `tileplan devices --format json`, with `sources`."""

    def __repr__(self):
        return f"Device({self.name!r}, {self.label!r})"


class Plan(Record):
    """`tileplan tile --format json`: the ranked candidates (iterate, index, len) and the report's fields."""

    def __len__(self):
        return len(self.candidates)

    def __iter__(self):
        return iter(self.candidates)

    def __getitem__(self, index):
        return self.candidates[index]

    def __repr__(self):
        p = self.problem
        return (f"Plan({p.m}x{p.n}x{p.k} {p.dtype} on {self.device.name}, model {self.model}, "
                f"{len(self.candidates)} of {self.feasible} feasible)")


class Occupancy(Record):
    """`tileplan occupancy --format json`."""


class LoopReport(Record):
    """`tileplan loop --format json`: nest, plan, summary, memory (and points when listed)."""


# Keys whose objects are mappings, not records (their keys are data).
_MAPPINGS = frozenset({"sources"})
_CLASSES = {"device": Device, "problem": Problem, "candidates": Candidate}


def _plain(value):
    if isinstance(value, Record):
        return value.to_dict()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _convert(key, value):
    if isinstance(value, dict):
        if key in _MAPPINGS:
            return {k: _convert(k, v) for k, v in value.items()}
        return _CLASSES.get(key, Record)(**{k: _convert(k, v) for k, v in value.items()})
    if isinstance(value, list):
        return [_convert(key, v) for v in value]
    return value


def wrap(obj, cls):
    """A dict from the extension as a record of class `cls`, its nested objects as records."""
    return cls(**{k: _convert(k, v) for k, v in obj.items()})
