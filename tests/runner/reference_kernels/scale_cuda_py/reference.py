import torch
from task import input_t, output_t


def ref_kernel(data: input_t) -> output_t:
    return data * 2


def generate_input(size: int, seed: int) -> input_t:
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    return torch.randn(size, device="cuda", dtype=torch.float16, generator=gen)


def check_implementation(data: input_t, output: output_t) -> str:
    # The older convention: an empty string when the output is right, else the reason.
    if torch.allclose(output, ref_kernel(data)):
        return ""
    return "mismatch found"
