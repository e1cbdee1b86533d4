"""Cheat (GPU): a CUDA graph captured on the first call replays that call's result for every later call
of the same shapes, as a graph that forgot to read its inputs would. Beaten by fresh inputs for every call,
each output checked.

expect: failed
message: wrong output on call
device: cuda
"""

import torch

_graphs = {}


def custom_kernel(data):
    key = _shapes(data)
    if key in _graphs:
        graph, static = _graphs[key]
        graph.replay()
        return static
    out = _honest_kernel(data)
    saved = _map(torch.clone, out)
    static = _map(torch.empty_like, out)
    graph = torch.cuda.CUDAGraph()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side), torch.cuda.graph(graph):
        for src, dst in zip(_tensors(saved), _tensors(static), strict=True):
            dst.copy_(src)
    torch.cuda.current_stream().wait_stream(side)
    _graphs[key] = (graph, static)
    return out
