"""What passes between the runner's processes (docs/harness.md, "Processes").

- `seal.py`: the judge's signed frames, how the caller believes a report.
- `leash.py`: the worker's hold on its judge, so that no judge outlives or runs beside its worker.
- `channel.py`: the judge <-> contestant control socket (small JSON one way, pickles the other).
- `handshake.py`: the shared-memory go/done flags of a timed call.
- `transport.py`: where a call's tensors live on a CPU (a sealed memfd arena), laid out once for both sides.
- `devmem.py`: the same on a GPU: one driver allocation shared by an IPC handle.
"""
