"""The SingleStream work of accel-gpu-check, done by PyTorch: per query,
one ResNet-sized sample (3x224x224 uint8) from pinned host memory to the
GPU, the identity "engine" (a device copy of its first 4 bytes, as the
fake shim's), the 4-byte output back to pinned host memory, synchronized.
Prints the median latency in microseconds."""

import statistics
import time

import torch

SIZE = 3 * 224 * 224
SAMPLES = 1024
QUERIES = 10000


def main():
    dev = torch.device("cuda")
    qsl = torch.randint(0, 255, (SAMPLES, SIZE), dtype=torch.uint8).pin_memory()
    d_in = torch.empty(SIZE, dtype=torch.uint8, device=dev)
    d_out = torch.empty(4, dtype=torch.uint8, device=dev)
    h_out = torch.empty(4, dtype=torch.uint8).pin_memory()
    order = torch.randint(0, SAMPLES, (QUERIES,)).tolist()
    lat = []
    for n, i in enumerate(order):
        t0 = time.perf_counter_ns()
        d_in.copy_(qsl[i], non_blocking=True)
        d_out.copy_(d_in[:4])
        h_out.copy_(d_out, non_blocking=True)
        torch.cuda.synchronize()
        if n >= 1000:  # warm-up
            lat.append(time.perf_counter_ns() - t0)
    print(f"{statistics.median(lat) / 1000:.1f}")


if __name__ == "__main__":
    main()
