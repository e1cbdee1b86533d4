"""The private control channel between judge and contestant: a Unix socket pair, pickles from the judge,
small JSON objects from the contestant, each reply echoing its command's fresh nonce; anything else is the
submission breaking the rules (ProtocolError). docs/harness.md, "Processes" and "The report is signed"."""

from __future__ import annotations

import fcntl
import json
import os
import pickle
import re
import secrets
import socket
import struct
from typing import Any

MAX_REPLY = 1 << 20  # a contestant's reply is a line of status, never data
# Keys in one reply, counted before it is parsed (a quote, maybe blanks, a colon: a string value may add to
# the count, never hide a key). A judge forked from the fork server shares its string-hash secret with the
# contestant (runner/judge/served.py), and the decoder hashes every key of a document into one dict, so a
# reply is kept to a number of keys whose worst case costs the judge little. An honest reply has a few
# dozen (a profile table, the largest, at most a few hundred).
MAX_KEYS = 4096
KEY = re.compile(rb'"\s*:')


class ChannelClosed(Exception):
    """The other side went away."""


class ProtocolError(Exception):
    """The contestant's side answered something the protocol does not allow; the message says what."""


def sealed_memfd(name: str, size: int) -> int:
    """A memfd of `size` bytes whose size no one can change any more: a contestant that shrank the arena it
    shares with the judge would make the judge die of SIGBUS on its next read."""
    fd = os.memfd_create(name, os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    os.ftruncate(fd, size)
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
    return fd


class Channel:
    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.nonce: int | None = None  # judge: of the last command sent; contestant: of the last received

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
        self.nonce = secrets.randbits(62)
        self._send_frame(pickle.dumps({**message, "nonce": self.nonce}), fds)

    def recv_command(self) -> tuple[dict[str, Any], list[int]]:
        head, fds, _flags, _addr = socket.recv_fds(self.sock, 4, 8)
        if not head:
            raise ChannelClosed
        if len(head) < 4:
            head += self._recv_exact(4 - len(head))
        (n,) = struct.unpack("<I", head)
        message = pickle.loads(self._recv_exact(n))
        self.nonce = message.get("nonce")
        return message, fds

    # contestant -> judge
    def send_reply(self, message: dict[str, Any]) -> None:
        self._send_frame(json.dumps({**message, "nonce": self.nonce}).encode())

    def recv_reply(self, timeout: float | None) -> dict[str, Any]:
        self.sock.settimeout(timeout)  # blocks in the kernel: the judge never spins on a CPU
        try:
            (n,) = struct.unpack("<I", self._recv_exact(4))
            if n > MAX_REPLY:
                raise ProtocolError(f"a reply of {n:,} bytes (at most {MAX_REPLY:,})")
            raw = self._recv_exact(n)
        finally:
            self.sock.settimeout(None)
        keys = len(KEY.findall(raw))
        if keys > MAX_KEYS:
            raise ProtocolError(f"a reply of {keys:,} keys (at most {MAX_KEYS:,})")
        try:
            reply = json.loads(raw)
        except (ValueError, RecursionError) as exc:  # not JSON, not UTF-8, or nested too deeply to read
            raise ProtocolError(f"a reply that is not a JSON object ({type(exc).__name__})") from None
        if not isinstance(reply, dict):
            raise ProtocolError(f"a reply that is a JSON {type(reply).__name__}, not an object")
        if reply.get("nonce") != self.nonce:
            raise ProtocolError("a reply that does not answer the judge's last command")
        return reply
