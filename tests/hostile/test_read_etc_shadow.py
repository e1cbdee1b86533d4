"""Attack: read the host's password hashes and other host files. Expected: error: /etc/shadow is not in
the sandbox (bwrap: "No such file or directory"; docker: the image's own, "Permission denied")."""

from tests.hostile.judging import describe, one_line

SOURCE = """
import torch

for path in ["/etc/hostname", "/etc/hosts", "/root/.bash_history", "/home"]:
    try:
        print("SAW", path, open(path).read(64) if not path.endswith("home") else __import__("os").listdir(path))
    except OSError as exc:
        print("blocked", path, exc)
print(open("/etc/shadow").read())


def custom_kernel(data):
    A, B, C = data
    return torch.add(A, B, out=C)
"""


def test_etc_shadow_cannot_be_read(hostile):
    report = hostile(SOURCE)
    assert report.verdict == "error", describe(report)
    message = one_line(report)
    assert "/etc/shadow" in message and (
        "No such file or directory" in message or "Permission denied" in message
    ), describe(report)
    assert "root:" not in report.logs, describe(report)
