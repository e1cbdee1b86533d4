"""Cheat (threat 12): a background thread watches the input buffers it has seen and computes each output as
soon as new inputs land, before the clock starts, so that the timed call only returns what is ready:
impossibly fast. Beaten by the judge stopping the contestant while it writes the inputs (nothing is ready
at go), by the physical floor, and by the output checks.

expect: failed
message: wrong output on call
threat: 12
"""

import threading

import torch

_slots = {}  # the first input's data_ptr -> the data of that slot
_ready = {}  # the first input's data_ptr -> the output computed for what the slot last held


def _key(x):
    flat = x.flatten()
    return float(flat[0]), float(flat[-1])


def _watch():
    last = {}
    while True:
        for ptr, data in list(_slots.items()):
            key = _key(_first(data))
            if last.get(ptr) != key:
                _ready[ptr] = _map(torch.clone, _honest_kernel(data))
                last[ptr] = key


threading.Thread(target=_watch, daemon=True).start()


def custom_kernel(data):
    ptr = _first(data).data_ptr()
    if ptr not in _slots:
        _ready[ptr] = _map(torch.clone, _honest_kernel(data))
        _slots[ptr] = data
    return _ready[ptr]  # trusting the watcher to have updated it already
