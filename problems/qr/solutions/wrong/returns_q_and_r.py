"""Wrong: returns the explicit factors (Q, R) of torch.linalg.qr instead of the compact Householder form
(H, tau) that torch.geqrf returns. The message names the shapes, on the first CPU test
"output 1 returned shape (8, 16, 16); expected (8, 16)".

expect: failed
message: output 1 returned shape
"""

import torch
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    Q, R = torch.linalg.qr(data)
    return Q, R
