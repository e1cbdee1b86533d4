"""Attack: write outside the scratch folder: the runner package (to patch the judge of later jobs), its own
submission and task.py, the job directory, the root, /tmp. Expected: error, "Read-only file system", with
nothing written anywhere; writing in the scratch folder works."""

from pathlib import Path

from runner.sandbox import RUNNER_ROOT
from tests.hostile.judging import attack, describe, expect

MARK = "kb-hostile-pwned"
SOURCE = attack("""
import os
import runner
import torch

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(os.environ["TMPDIR"], "scratch-works.txt"), "w") as f:
    f.write("ok")
print("scratch ok")
for path in [os.path.join(here, "MARK"), os.path.join(here, "submission.py"), os.path.join(here, "task.py"),
             "/MARK", "/tmp/MARK", "/usr/MARK", "/etc/MARK"]:
    try:
        with open(path, "a") as f:
            f.write("pwned")
        print("WROTE", path)
    except OSError as exc:
        print("blocked", path, exc)
# The runner package as the sandbox shows it (a host path under bwrap, the image's copy under docker).
with open(os.path.join(os.path.dirname(runner.__file__), "MARK.py"), "w") as f:
    f.write("raise SystemExit('pwned')")
""")


def test_nothing_outside_scratch_can_be_written(hostile):
    runner_dir = RUNNER_ROOT / "runner"
    report = hostile(SOURCE.replace("MARK", MARK))
    expect(report, "error", "Read-only file system")
    assert "scratch ok" in report.logs and "WROTE" not in report.logs, describe(report)
    assert not (runner_dir / f"{MARK}.py").exists()
    assert not any(Path(p).exists() for p in (f"/{MARK}", f"/tmp/{MARK}", f"/usr/{MARK}", f"/etc/{MARK}"))
