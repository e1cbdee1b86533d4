"""A batching cheat against its honest twin, in interleaved pairs, in benchmark and leaderboard mode on the
CPU (docs/benchmarks.md, issue 27). The cheat replaces the contestant's harness loop so that one call serves
a whole window (problems/vectoradd/solutions/cheating/t04_batch_window.py); the twin is the problem's honest
solution. Run from the checkout's root:

    .venv/bin/python scripts/bench_batching.py [--pairs 3] [--sandbox bwrap]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from runner import JobSpec, execute  # noqa: E402
from tests.runner import golden  # noqa: E402

CHEAT = Path(__file__).resolve().parent.parent / "problems/vectoradd/solutions/cheating/t04_batch_window.py"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--sandbox", default="bwrap")
    args = parser.parse_args()
    twins = {"honest": golden.honest("vectoradd"), "cheat": golden.wrap("vectoradd", CHEAT.read_text())}
    print("mode\tpair\tsubmission\tverdict\tscore\thandshake\tmessage")
    for mode in ("benchmark", "leaderboard"):
        for pair in range(1, args.pairs + 1):
            for name, source in twins.items():  # interleaved: each pair shares the machine's load
                report = execute(
                    JobSpec(
                        problem="vectoradd",
                        source=source,
                        mode=mode,
                        device="cpu",
                        sandbox=args.sandbox,
                        allow_unisolated=args.sandbox == "none",
                    )
                )
                score = f"{report.score_s * 1e6:.1f} us" if report.score_s else "-"
                handshake = f"{report.handshake_s * 1e6:.1f} us" if report.handshake_s else "-"
                print(
                    f"{mode}\t{pair}\t{name}\t{report.verdict}\t{score}\t{handshake}\t{report.message[:80]}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
