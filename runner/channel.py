"""The private control channel between judge and contestant: a Unix socket pair.

Judge -> contestant messages are pickles (the contestant may trust the judge), with file descriptors
attached where needed. Contestant -> judge messages are small JSON objects: the judge never unpickles
anything the contestant wrote, and it believes no number the contestant sends.
"""

from __future__ import annotations

import json
import pickle
import socket
import struct
from typing import Any

MAX_REPLY = 1 << 20  # a contestant's reply is a line of status, never data


class ChannelClosed(Exception):
    """The other side went away."""


class Channel:
    def __init__(self, sock: socket.socket):
        self.sock = sock

    def _recv_exact(self, n: int) -> bytes:
        chunks, got = [], 0
        while got < n:
            chunk = self.sock.recv(n - got)
            if not chunk:
                raise ChannelClosed
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)

    def _send_frame(self, payload: bytes, fds: tuple[int, ...] = ()) -> None:
        frame = struct.pack("<I", len(payload)) + payload
        if fds:
            socket.send_fds(self.sock, [frame[:4]], list(fds))
            self.sock.sendall(frame[4:])
        else:
            self.sock.sendall(frame)

    # judge -> contestant
    def send_command(self, message: dict[str, Any], fds: tuple[int, ...] = ()) -> None:
        self._send_frame(pickle.dumps(message), fds)

    def recv_command(self) -> tuple[dict[str, Any], list[int]]:
        head, fds, _flags, _addr = socket.recv_fds(self.sock, 4, 8)
        if not head:
            raise ChannelClosed
        if len(head) < 4:
            head += self._recv_exact(4 - len(head))
        (n,) = struct.unpack("<I", head)
        return pickle.loads(self._recv_exact(n)), fds

    # contestant -> judge
    def send_reply(self, message: dict[str, Any]) -> None:
        self._send_frame(json.dumps(message).encode())

    def recv_reply(self, timeout: float | None) -> dict[str, Any]:
        self.sock.settimeout(timeout)  # blocks in the kernel: the judge never spins on a CPU
        try:
            (n,) = struct.unpack("<I", self._recv_exact(4))
            if n > MAX_REPLY:
                raise ChannelClosed
            reply = json.loads(self._recv_exact(n))
        finally:
            self.sock.settimeout(None)
        if not isinstance(reply, dict):
            raise ChannelClosed
        return reply
