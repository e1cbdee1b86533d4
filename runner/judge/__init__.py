"""The judge: the trusted side of a run, one process per job (`python -m runner.judge`).
docs/architecture.md lists its modules; docs/harness.md has the design."""
