"""The caller's pre-checks (runner/caller.py): refused in the user's words before any judge starts."""

from runner.caller import precheck
from runner.spec import JobSpec


def test_precheck_refuses_in_the_users_words():
    ok = "def custom_kernel(data):\n    return data\n"
    assert precheck(JobSpec(problem="vectoradd", source=ok)) is None
    assert "defines no function custom_kernel" in precheck(JobSpec(problem="vectoradd", source="x = 1\n"))
    assert "syntax error on line 1" in precheck(JobSpec(problem="vectoradd", source="def f(:\n"))
    # GPU MODE's KernelBot takes 1 MB: a 300 KiB kernel runs, one over 1 MiB is refused
    assert precheck(JobSpec(problem="vectoradd", source=ok + "#" * (300 * 1024))) is None
    big = precheck(JobSpec(problem="vectoradd", source=ok + "#" * (1100 * 1024)))
    assert "the limit is 1024 KiB" in big
    bad = b"def custom_kernel(d):\n    return '\xff'\n".decode("utf-8", errors="surrogateescape")
    assert "not UTF-8" in precheck(JobSpec(problem="vectoradd", source=bad))
    # GPU MODE submissions that import custom_kernel from another name still count
    assert precheck(JobSpec(problem="vectoradd", source="from x import custom_kernel\n")) is None
