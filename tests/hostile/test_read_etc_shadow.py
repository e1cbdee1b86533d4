"""Attack: read the host's password hashes and other host files. Expected: error: /etc/shadow is not in
the sandbox (bwrap: "No such file or directory"; docker: the image's own, "Permission denied")."""

from tests.hostile.judging import attack, describe, expect

SOURCE = attack("""
import torch

for path in ["/etc/hostname", "/etc/hosts", "/root/.bash_history", "/home"]:
    try:
        print("SAW", path, open(path).read(64) if not path.endswith("home") else __import__("os").listdir(path))
    except OSError as exc:
        print("blocked", path, exc)
print(open("/etc/shadow").read())
""")


def test_etc_shadow_cannot_be_read(hostile):
    report = hostile(SOURCE)
    message = expect(report, "error", "/etc/shadow")
    assert "No such file or directory" in message or "Permission denied" in message, describe(report)
    assert "root:" not in report.logs, describe(report)
