#!/usr/bin/env python3
"""Measure what autograd saves for the backward pass of one transformer layer.

Runs small GPT-, Llama- and MoE-shaped layers in PyTorch on the CPU, in bf16,
and records every tensor autograd saves (torch.autograd.graph.saved_tensors_hooks)
under no recompute and under full checkpointing (torch.utils.checkpoint). Writes
costmodel/testdata/activations/measured.json and measured.csv, which
costmodel/activations_measured_test.go compares with the planner's per-layer
inventory. The Go tests read the committed files and never run this script.

The layers are written the way the planner models them:
  * attention is eager math: scores = Q K^T / sqrt(d) with an additive causal
    mask, softmax, (dropout), P V, one grouped bmm per KV head, so grouped-query
    attention saves K and V at KV width (repeating them to the query heads, as
    Hugging Face's eager repeat_kv does, would save them at query width);
  * RMSNorm and SwiGLU are fused functions that save their input (and RMSNorm its
    fp32 1/rms per token), as Megatron-LM / Transformer Engine kernels do; LayerNorm
    is torch's native layer_norm (input, and fp32 mean and 1/std per token);
  * no rotary embedding (it multiplies by constant tables and saves none of the
    layer's activations).

Tensors are counted once per storage; parameters, buffers and constants are not
counted. Run: scripts/measure-activations.py (installs Debian's python3-torch
with apt-get when torch is missing).
"""

import csv
import json
import math
import os
import shutil
import subprocess
import sys


def ensure_torch():
    try:
        import torch  # noqa: F401
        return
    except ImportError:
        pass
    if os.path.exists("/usr/bin/python3") and sys.executable != "/usr/bin/python3":
        probe = subprocess.run(["/usr/bin/python3", "-c", "import torch"], capture_output=True)
        if probe.returncode == 0:
            os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    apt = ["apt-get", "install", "-y", "--no-install-recommends", "python3-torch"]
    if os.geteuid() != 0 and shutil.which("sudo"):
        apt = ["sudo"] + apt
    subprocess.run(apt, check=True, env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
    os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)


ensure_torch()

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.utils.checkpoint import checkpoint  # noqa: E402

DT = torch.bfloat16


class RMSNormFn(torch.autograd.Function):
    """Fused RMSNorm: saves the input and the fp32 1/rms of each token."""

    @staticmethod
    def forward(ctx, x, w):
        r = torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-5)
        ctx.save_for_backward(x, r, w)
        return (x.float() * r).to(x.dtype) * w

    @staticmethod
    def backward(ctx, g):
        x, r, w = ctx.saved_tensors
        xf, gf = x.float(), (g * w).float()
        n = xf * r
        dx = r * (gf - n * (gf * n).mean(-1, keepdim=True))
        return dx.to(x.dtype), (g.float() * n).sum((0, 1)).to(w.dtype)


class SwiGLUFn(torch.autograd.Function):
    """Fused SwiGLU silu(gate) * up over the concatenated projections:
    saves its 2f-wide input and recomputes silu (Megatron's bias_swiglu)."""

    @staticmethod
    def forward(ctx, gu):
        ctx.save_for_backward(gu)
        g, u = gu.chunk(2, -1)
        return F.silu(g) * u

    @staticmethod
    def backward(ctx, dy):
        (gu,) = ctx.saved_tensors
        g, u = gu.float().chunk(2, -1)
        s = torch.sigmoid(g)
        dg = dy.float() * u * s * (1 + g * (1 - s))
        du = dy.float() * g * s
        return torch.cat([dg, du], -1).to(gu.dtype)


def param(*shape):
    return torch.nn.Parameter(torch.randn(*shape, dtype=DT) * 0.02)


class Layer(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c
        h, a, kv, d = c["hidden"], c["heads"], c["kv_heads"], c["head_dim"]
        self.wqkv = param((a + 2 * kv) * d, h)
        self.wo = param(h, a * d)
        self.n1, self.n2 = torch.nn.Parameter(torch.ones(h, dtype=DT)), torch.nn.Parameter(torch.ones(h, dtype=DT))
        self.b1, self.b2 = torch.nn.Parameter(torch.zeros(h, dtype=DT)), torch.nn.Parameter(torch.zeros(h, dtype=DT))
        s = c["seq"]
        g = a // kv
        mask = torch.full((s, s), float("-inf")).triu(1).to(DT)
        self.register_buffer("mask", mask.repeat(g, 1))
        if c.get("moe"):
            m = c["moe"]
            self.router = param(m["experts"], h)
            self.experts = torch.nn.ParameterList()
            for _ in range(m["experts"]):
                self.experts.append(param(2 * m["expert_ffn"], h))
                self.experts.append(param(h, m["expert_ffn"]))
        else:
            f = c["ffn"]
            width = 2 * f if c["mlp"] == "swiglu" else f
            self.w1, self.w2 = param(width, h), param(h, f)
        self.adapters = torch.nn.ParameterDict()
        if c.get("lora"):
            for p in self.parameters():
                p.requires_grad_(False)  # the frozen base
            r, f = c["lora"]["rank"], c["ffn"]
            dims = {"q": (h, a * d), "k": (h, kv * d), "v": (h, kv * d), "o": (a * d, h),
                    "gate": (h, f), "up": (h, f), "down": (f, h)}
            for t in c["lora"]["targets"]:
                n_in, n_out = dims[t]
                self.adapters[t + "_a"] = param(r, n_in)
                self.adapters[t + "_b"] = param(n_out, r)

    def delta(self, t, x):
        """LoRA's B A x for target t, or 0 when t carries no adapter."""
        if t + "_a" not in self.adapters:
            return 0
        return F.linear(F.linear(x, self.adapters[t + "_a"]), self.adapters[t + "_b"])

    def norm(self, x, w, b):
        if self.c["norm"] == "rmsnorm":
            return RMSNormFn.apply(x, w)
        return F.layer_norm(x, (x.shape[-1],), w, b)

    def dropout(self, x):
        return F.dropout(x, 0.1, training=True) if self.c["dropout"] else x

    def attention(self, x):
        c = self.c
        b, s, _ = x.shape
        a, kv, d = c["heads"], c["kv_heads"], c["head_dim"]
        g = a // kv
        qkv = F.linear(x, self.wqkv)
        q, k, v = qkv.split([a * d, kv * d, kv * d], -1)
        q, k, v = q + self.delta("q", x), k + self.delta("k", x), v + self.delta("v", x)
        q = q.view(b, s, a, d).transpose(1, 2).contiguous()  # (b, a, s, d)
        k = k.view(b, s, kv, d).transpose(1, 2).contiguous()
        v = v.view(b, s, kv, d).transpose(1, 2).contiguous()
        outs = []
        for j in range(kv):
            qg = q[:, j * g:(j + 1) * g].reshape(b, g * s, d)
            scores = torch.bmm(qg, k[:, j].transpose(1, 2)) * (1 / math.sqrt(d)) + self.mask
            p = self.dropout(torch.softmax(scores, -1))
            outs.append(torch.bmm(p, v[:, j]).view(b, g, s, d))
        o = torch.cat(outs, 1).transpose(1, 2).reshape(b, s, a * d)
        return self.dropout(F.linear(o, self.wo) + self.delta("o", o))

    def mlp(self, x):
        if self.c["mlp"] == "swiglu":
            gu = F.linear(x, self.w1)
            if "gate_a" in self.adapters or "up_a" in self.adapters:
                g, u = gu.chunk(2, -1)
                gu = torch.cat([g + self.delta("gate", x), u + self.delta("up", x)], -1)
            z = SwiGLUFn.apply(gu)
            return F.linear(z, self.w2) + self.delta("down", z)
        return F.linear(F.gelu(F.linear(x, self.w1)), self.w2)

    def moe(self, x):
        m = self.c["moe"]
        b, s, h = x.shape
        t = x.reshape(b * s, h)
        probs = torch.softmax(F.linear(t, self.router).float(), -1)
        w, idx = probs.topk(m["top_k"], -1)
        w = (w / w.sum(-1, keepdim=True)).to(DT)
        out = torch.zeros_like(t)
        for e in range(m["experts"]):
            rows, slot = (idx == e).nonzero(as_tuple=True)
            xe = t[rows]
            ye = F.linear(SwiGLUFn.apply(F.linear(xe, self.experts[2 * e])), self.experts[2 * e + 1])
            out = out.index_put((rows,), ye * w[rows, slot].unsqueeze(-1), accumulate=True)
        return out.view(b, s, h)

    def forward(self, x):
        x = x + self.attention(self.norm(x, self.n1, self.b1))
        y = self.norm(x, self.n2, self.b2)
        return x + self.dropout(self.moe(y) if self.c.get("moe") else self.mlp(y))


def measure(c, recompute):
    torch.manual_seed(0)
    layer = Layer(c)
    skip = {p.storage().data_ptr() for p in layer.parameters()} | {bf.storage().data_ptr() for bf in layer.buffers()}
    x = torch.randn(c["batch"], c["seq"], c["hidden"], dtype=DT, requires_grad=True)
    seen, saved = set(), []

    def pack(t):
        st = t.storage()
        key = st.data_ptr()
        if key not in seen and key not in skip:
            seen.add(key)
            saved.append({"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""),
                          "bytes": st.nbytes(), "grad_fn": type(t.grad_fn).__name__ if t.grad_fn else ""})
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        y = checkpoint(layer, x, use_reentrant=True) if recompute == "full" else layer(x)
    y.float().sum().backward()  # the saved tensors suffice for the backward
    return saved


CONFIGS = [
    {"name": "gpt", "hidden": 256, "heads": 8, "kv_heads": 8, "head_dim": 32, "ffn": 1024, "seq": 128, "batch": 2,
     "norm": "layernorm", "mlp": "gelu", "dropout": True},
    {"name": "llama", "hidden": 256, "heads": 8, "kv_heads": 2, "head_dim": 32, "ffn": 688, "seq": 128, "batch": 2,
     "norm": "rmsnorm", "mlp": "swiglu", "dropout": False},
    {"name": "llama-lora-qv", "hidden": 256, "heads": 8, "kv_heads": 2, "head_dim": 32, "ffn": 688, "seq": 128, "batch": 2,
     "norm": "rmsnorm", "mlp": "swiglu", "dropout": False, "lora": {"rank": 8, "targets": ["q", "v"]}},
    {"name": "llama-lora-all", "hidden": 256, "heads": 8, "kv_heads": 2, "head_dim": 32, "ffn": 688, "seq": 128, "batch": 2,
     "norm": "rmsnorm", "mlp": "swiglu", "dropout": False,
     "lora": {"rank": 8, "targets": ["q", "k", "v", "o", "gate", "up", "down"]}},
    {"name": "moe", "hidden": 256, "heads": 8, "kv_heads": 2, "head_dim": 32, "ffn": 0, "seq": 128, "batch": 2,
     "norm": "rmsnorm", "mlp": "swiglu", "dropout": False, "moe": {"experts": 8, "top_k": 2, "expert_ffn": 128}},
]


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "costmodel", "testdata", "activations")
    os.makedirs(out, exist_ok=True)
    result = {"torch": torch.__version__, "dtype": "bfloat16", "layers": []}
    rows = []
    for c in CONFIGS:
        entry = {"config": c, "modes": {}}
        for mode in ("none", "full"):
            saved = measure(c, mode)
            entry["modes"][mode] = {"total_bytes": sum(s["bytes"] for s in saved), "tensors": saved}
            for i, s in enumerate(saved):
                rows.append([c["name"], mode, i, s["grad_fn"], "x".join(map(str, s["shape"])), s["dtype"], s["bytes"]])
        result["layers"].append(entry)
    with open(os.path.join(out, "measured.json"), "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
        f.write("\n")
    with open(os.path.join(out, "measured.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["layer", "recompute", "index", "grad_fn", "shape", "dtype", "bytes"])
        w.writerows(rows)
    for e in result["layers"]:
        print(e["config"]["name"], {m: v["total_bytes"] for m, v in e["modes"].items()})


if __name__ == "__main__":
    main()
