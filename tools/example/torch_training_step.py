#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Training steps whose parameters come out with the same bits on the CPU and on a GPU (docs/torch.md).

A bag-of-embeddings regressor built only from detred.torch's operators and element-wise arithmetic: an embedding
lookup (index_select, backward: detred's index_add), bags summed (segment_sum), a linear layer as detred row sums
(matrix products are not detred's: cuBLAS and the CPU's BLAS round differently), rms_norm, a mean squared error
(mean), and plain SGD. Every reduction, forward and backward, is detred's, so the parameters after each step are the
same bits on every device and batch layout.

    PYTHONPATH=build/release/bindings/python /usr/bin/python3 tools/example/torch_training_step.py [--steps 5]

Prints the SHA-256 of the parameters after the steps on the CPU, and on CUDA when PyTorch sees a GPU and detred has
its CUDA backend; exit status 1 if they differ.
"""

import argparse
import hashlib
import sys

import torch

import detred
import detred.torch as dt


class Linear(torch.autograd.Function):
    """y = x W^T + b with detred's sums: y[n, o] = sum_i x[n, i] W[o, i] (a row sum of the products); the gradients
    are detred sums too (over the outputs for x, over the batch for W and b)."""

    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight)
        return dt.sum(x.unsqueeze(1) * weight.unsqueeze(0), dim=-1) + bias

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        dx = dt.sum(grad.unsqueeze(2) * weight.unsqueeze(0), dim=1)
        dweight = dt.sum(grad.unsqueeze(2) * x.unsqueeze(1), dim=0)
        return dx, dweight, dt.sum(grad, dim=0)


def parameters(device):
    g = torch.Generator().manual_seed(0)
    p = {
        "embedding": torch.randn(1000, 64, generator=g) * 0.1,
        "norm": torch.ones(64),
        "w1": torch.randn(32, 64, generator=g) * 0.1,
        "b1": torch.zeros(32),
        "w2": torch.randn(1, 32, generator=g) * 0.1,
        "b2": torch.zeros(1),
    }
    return {k: v.to(device).requires_grad_() for k, v in p.items()}


def batch(step, device):
    g = torch.Generator().manual_seed(100 + step)
    lengths = torch.randint(1, 40, (256,), generator=g)
    tokens = torch.randint(0, 1000, (int(lengths.sum()),), generator=g)  # frequent repeats: a scatter-add backward
    target = torch.randn(256, 1, generator=g)
    return tokens.to(device), lengths.to(device), target.to(device)


def loss_of(p, tokens, lengths, target):
    bags = dt.segment_sum(dt.index_select(p["embedding"], 0, tokens), lengths=lengths)
    hidden = torch.relu(Linear.apply(dt.rms_norm(bags, p["norm"]), p["w1"], p["b1"]))
    out = Linear.apply(hidden, p["w2"], p["b2"])
    return dt.mean((out - target) * (out - target))


def train(device, steps, lr=0.05):
    p = parameters(device)
    for step in range(steps):
        loss = loss_of(p, *batch(step, device))
        for v in p.values():
            v.grad = None
        loss.backward()
        with torch.no_grad():
            for v in p.values():
                v -= lr * v.grad  # element-wise: correctly rounded on every device
    digest = hashlib.sha256()
    for name in sorted(p):
        digest.update(p[name].detach().cpu().contiguous().numpy().tobytes())
    return digest.hexdigest(), float(loss)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=5)
    args = parser.parse_args()
    cpu, loss = train("cpu", args.steps)
    print(f"cpu : parameters sha256 {cpu} (last loss {loss:.6f})")
    if torch.cuda.is_available() and detred.cuda_available():
        gpu, loss = train("cuda", args.steps)
        print(f"cuda: parameters sha256 {gpu} (last loss {loss:.6f})")
        if gpu != cpu:
            print("the parameters differ", file=sys.stderr)
            return 1
        print("identical parameters on the CPU and the GPU")
    else:
        print("cuda: skipped (no CUDA device for PyTorch, or detred without its CUDA backend)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
