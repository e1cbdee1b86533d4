"""Attack: reach a service of the host over its loopback (a database, a broker, the platform's web port):
TCP to 127.0.0.1 and to the host's own addresses, and an abstract Unix socket. The test opens real
listeners and asserts that they never got a connection: the sandbox has a network namespace of its own.
Expected: error, "Connection refused" (its own loopback has nobody listening)."""

import socket

from tests.hostile.judging import attack, describe, one_line

SOURCE = attack("""
import socket
import torch

for family, address in TARGETS:
    s = socket.socket(getattr(socket, family), socket.SOCK_STREAM)
    s.settimeout(2)
    try:
        s.connect(address)
        print("CONNECTED", address)
    except OSError as exc:
        print("blocked", address, exc)
    finally:
        s.close()
socket.create_connection(("127.0.0.1", PORT), timeout=5)  # the verdict's reason
""")


def _host_addresses() -> list[str]:
    try:
        return sorted(
            {a for a in socket.gethostbyname_ex(socket.gethostname())[2] if not a.startswith("127.")}
        )
    except OSError:
        return []


def test_connecting_to_a_listener_on_the_hosts_loopback_never_reaches_it(hostile):
    tcp = socket.create_server(("0.0.0.0", 0), backlog=16)
    port = tcp.getsockname()[1]
    unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    name = f"\0kb-hostile-{port}"
    unix.bind(name)
    unix.listen(16)
    targets = [("AF_INET", ("127.0.0.1", port))] + [("AF_INET", (a, port)) for a in _host_addresses()]
    targets.append(("AF_UNIX", name))
    source = SOURCE.replace("TARGETS", repr(targets)).replace("PORT", str(port))
    try:
        report = hostile(source)
        for listener in (tcp, unix):
            listener.setblocking(False)
            try:
                conn, peer = listener.accept()
            except BlockingIOError:
                continue
            conn.close()
            raise AssertionError(f"the submission reached a listener on the host: {peer!r}")
    finally:
        tcp.close()
        unix.close()
    assert report.verdict == "error", describe(report)
    assert "ConnectionRefusedError" in one_line(report) or "Connection refused" in report.message, describe(
        report
    )
    assert "CONNECTED" not in report.logs, describe(report)
