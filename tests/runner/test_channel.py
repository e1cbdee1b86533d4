"""The control socket (runner/wire/channel.py): one small JSON object per reply."""


def test_a_reply_is_one_small_object_that_answers_the_last_command():
    import json
    import socket
    import struct

    import pytest

    from runner.wire.channel import MAX_KEYS, Channel, ProtocolError

    judge_end, contestant_end = socket.socketpair()
    judge, contestant = Channel(judge_end), Channel(contestant_end)

    def exchange(reply: bytes) -> dict:
        judge.send_command({"op": "run"})
        contestant.recv_command()
        contestant.sock.sendall(struct.pack("<I", len(reply)) + reply)
        return judge.recv_reply(5)

    def answering(body: str) -> bytes:
        return ("{" + body + f', "nonce": {json.dumps(judge.nonce)}' + "}").encode()

    judge.send_command({"op": "run"})
    contestant.recv_command()
    contestant.send_reply({"ok": True, "outputs": [{"a": 1}] * 3})
    assert judge.recv_reply(5)["ok"] is True
    # Keys that a contestant sharing the judge's hash secret could make collide: refused before any is
    # hashed, in one object or spread over many.
    for body in (
        ", ".join(f'"k{i}": 0' for i in range(MAX_KEYS + 1)),
        '"many": [' + ", ".join(f'{{"k{i}" : 0}}' for i in range(MAX_KEYS)) + "]",
    ):
        judge.send_command({"op": "run"})
        contestant.recv_command()
        raw = answering(body)
        contestant.sock.sendall(struct.pack("<I", len(raw)) + raw)
        with pytest.raises(ProtocolError, match=f"keys \\(at most {MAX_KEYS:,}\\)"):
            judge.recv_reply(5)
    with pytest.raises(ProtocolError, match="does not answer"):
        exchange(b'{"ok": true, "nonce": -1}')
    with pytest.raises(ProtocolError, match="JSON list"):
        exchange(b"[1, 2]")
