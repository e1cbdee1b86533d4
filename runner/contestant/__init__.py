"""The untrusted process: the contestant imports the submission and calls custom_kernel when the judge says
go (`python -m runner.contestant.harness FD`). Nothing here decides anything; docs/harness.md says why.

- `harness.py`: the process: the import, the calls, the outputs stored where the judge reads them.
- `utils.py`: the `utils` module a submission imports, as in GPU MODE's reference-kernels.
"""
