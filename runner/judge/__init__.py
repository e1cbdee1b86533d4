"""The judge: the trusted side of a run, one process per job (`python -m runner.judge`).

- `__main__.py`: the process entry: the request on stdin, the signed report out, the job's limits.
- `loop.py`: `Judge`, the case loop: fresh inputs for every call, windows timed on the judge's clock, every
  output checked, the contestant frozen between windows.
- `slots.py`: where each call's inputs and outputs live (a shared memfd arena on a CPU, CUDA IPC slots on a
  GPU), laid out by one function for both.
- `verdict.py`: the run's verdict, message and score from its cases and flags: a pure function.
- `contestant_process.py`: the contestant's process seen from the judge: starting it in its sandbox, talking to it, and
  every way it can fail turned into a verdict with a message.

The untrusted side is runner/contestant/harness.py; the caller's side (pre-checks, the job directory, starting this
process and believing its report) is runner/caller.py. docs/harness.md has the design.
"""
