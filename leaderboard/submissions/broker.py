"""What the sweeper asks the broker: has it lost its messages, and which ids does it still hold?

A broker that restarts without its data (Redis without persistence, a RabbitMQ node rebuilt) silently
forgets every queued id; the database still says `queued`. Resending every queued id on a timer would find
them, but would also resend a healthy backlog over and over, each resend one more message to skip. So:

- A marker message sits in a queue of its own (`MARKER_QUEUE`, never consumed), stored the way the judge
  messages are (durable queue, persistent message). If the sweeper finds it gone, the broker has lost what
  it held: every queued id is sent again at once, and a new marker is left.
- Where the transport lets us look without taking (Redis, the filesystem), `held_ids` lists the ids the
  broker holds, waiting or delivered and unacknowledged, so that the periodic resend sends only what is
  missing. RabbitMQ cannot be read without consuming; there the marker and the failed-send rule suffice
  (it redelivers what a lost worker held).
"""

from __future__ import annotations

import base64
import json
import logging
import os
from pathlib import Path

from kombu import Producer

logger = logging.getLogger(__name__)

MARKER_QUEUE = "kernelboard-broker-marker"


def _app():
    from leaderboard.celery import app

    return app


def broker_lost_messages() -> bool:
    """True when the broker no longer holds the marker (it restarted without its data, or this is the first
    look at a new broker); a new marker is left either way. Raises if the broker cannot be reached."""
    with _app().connection_for_write() as conn:
        conn.ensure_connection(max_retries=1)
        channel = conn.default_channel
        _, count, _ = channel.queue_declare(queue=MARKER_QUEUE, durable=True, auto_delete=False)
        if count:
            return False
        Producer(channel).publish(
            {"marker": "kernelboard: the sweeper checks that this message survives"},
            exchange="",
            routing_key=MARKER_QUEUE,
            delivery_mode=2,
            serializer="json",
            retry=True,
        )
        return True


def held_ids(queue: str) -> set[int] | None:
    """The submission ids the broker holds for `queue` (waiting, or delivered and not yet acknowledged), or
    None where the transport cannot be read without taking its messages."""
    with _app().connection_for_write() as conn:
        conn.ensure_connection(max_retries=1)
        kind = conn.transport.driver_type
        if kind == "redis":
            return _held_by_redis(conn.default_channel, queue)
        if kind == "filesystem":
            return _held_in_folder(conn, queue)
    return None


def _submission_id(payload: bytes | str) -> int | None:
    """The id in a Celery (protocol 2) message as kombu stores it: JSON whose body is, by default, base64 of
    [args, kwargs, embed]."""
    try:
        message = json.loads(payload)
        body = message["body"]
        if message.get("properties", {}).get("body_encoding") == "base64":
            body = base64.b64decode(body)
        args = json.loads(body)[0]
        return int(args[0])
    except (ValueError, KeyError, IndexError, TypeError):
        return None


def _held_by_redis(channel, queue: str) -> set[int]:
    client = channel.client
    payloads = []
    for priority in channel.priority_steps:
        payloads += client.lrange(channel._q_for_pri(queue, priority), 0, -1)
    for entry in client.hvals(channel.unacked_key):  # [message, exchange, routing key]
        try:
            message, _, routing_key = json.loads(entry)
        except ValueError:
            continue
        if routing_key == queue:
            payloads.append(json.dumps(message))
    return {i for i in map(_submission_id, payloads) if i is not None}


def _held_in_folder(conn, queue: str) -> set[int]:
    folder = Path(conn.transport_options.get("data_folder_in", "data_in"))
    found = set()
    suffix = f".{queue}.msg"
    for name in os.listdir(folder) if folder.is_dir() else ():
        if name.endswith(suffix):
            try:
                submission_id = _submission_id((folder / name).read_bytes())
            except OSError:  # taken by a worker while we looked
                continue
            if submission_id is not None:
                found.add(submission_id)
    return found
