"""Speed of the Python package: what one autotuner hook call costs.

    PYTHONPATH=build/release/python python3 bench/python/hooks_bench.py [--calls N]

Prints the median and the 10th-90th percentile of N calls of each, in
microseconds. Stand-ins for triton.Config and torch tensors (the attributes the
hooks read), so Triton is not needed. The figures in the README came from here.
"""

import argparse
import itertools
import statistics
import time

import tileplan
import tileplan.triton as tt


class Config:
    def __init__(self, kwargs, num_warps, num_stages):
        self.kwargs, self.num_warps, self.num_stages = kwargs, num_warps, num_stages


class Tensor:
    def __init__(self, shape, dtype="torch.float16"):
        self.shape, self.dtype = shape, dtype

    def stride(self, dim=None):
        strides = (self.shape[1], 1)
        return strides if dim is None else strides[dim]


def timed(label, function, calls):
    function()  # warm: caches, the planner's table for the problem's class
    samples = []
    for _ in range(calls):
        start = time.perf_counter()
        function()
        samples.append((time.perf_counter() - start) * 1e6)
    deciles = statistics.quantiles(samples, n=10)
    print(f"{label:<58} {statistics.median(samples):9.1f} us   ({deciles[0]:.1f}-{deciles[-1]:.1f})")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=2000)
    calls = parser.parse_args().calls
    grid = [Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8}, w, s)
            for bm, bn, bk, s, w in itertools.product([64, 128, 256], [64, 128, 256], [32, 64, 128], [2, 3, 4, 5],
                                                      [4, 8])]
    m = n = k = 4096
    nargs = {"a_ptr": Tensor((m, k)), "b_ptr": Tensor((k, n)), "c_ptr": Tensor((m, n)), "M": m, "N": n, "K": k}
    prune = tt.prune(top_k=3)["early_config_prune"]
    heuristics = tt.heuristics()
    print(f"median of {calls} calls (10th-90th percentile)")
    timed(f"prune: {len(grid)} configs, 4096^3 float16 tensors", lambda: prune(grid, nargs), calls)
    timed("prune: 24 configs", lambda: prune(grid[:24], nargs), calls)
    timed("prune: 24 configs, sizes only (no tensors)", lambda: prune(grid[:24], {"M": m, "N": n, "K": k}), calls)
    timed("heuristics: the 6 values of a planned problem", lambda: [f(nargs) for f in heuristics.values()], calls)
    sizes = itertools.count(1)
    timed("heuristics: a new problem each call (one plan)",
          lambda: heuristics["BLOCK_M"]({"M": 64 * next(sizes), "N": n, "K": k}), calls)
    timed("tileplan.plan(4096, 4096, 4096): a planner, 15 candidates", lambda: tileplan.plan(m, n, k), calls // 4)
    timed("tileplan.diagnose(4096, 4096, 4096)", lambda: tileplan.diagnose(m, n, k), calls)


if __name__ == "__main__":
    main()
