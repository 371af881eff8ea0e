#!/usr/bin/env python3
"""Measure what autograd saves for the backward pass of one transformer layer.

Runs small GPT-, Llama- and MoE-shaped layers in PyTorch on the CPU, in bf16,
and records every tensor autograd saves (torch.autograd.graph.saved_tensors_hooks)
under each recompute policy the planner models, named by the planner's plan
string (policies()). Writes costmodel/testdata/activations/measured.json and
measured.csv (layer, recompute, index, grad_fn, shape, dtype, bytes), which
costmodel/activations_measured_test.go compares with the planner's per-layer
inventory. The Go tests read the committed files and never run this script.
Regenerate with: scripts/measure-activations.py (installs Debian's
python3-torch with apt-get, with sudo when not root, when torch is missing).

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

The policies (Megatron-Core at d98e8a64, torchtitan at 1f029641b5ca):
  * none; full: torch.utils.checkpoint (reentrant) around the whole layer.
  * selective, selective[...]: Megatron-Core's recompute_modules, each one
    checkpointing the region Megatron wraps:
      core_attn  attention.py _checkpointed_attention_forward: the reentrant
                 tensor_parallel.checkpoint (saves its tensor inputs Q, K, V)
                 around QK^T, softmax, dropout, PV;
      layernorm  transformer_layer.py: input_layernorm and pre_mlp_layernorm in
                 a CheckpointWithoutOutput (tensor_parallel/random.py) that keeps
                 the norm's input, frees its output's storage once the attention
                 (resp. MLP) has run (discard_output_and_register_recompute) and
                 reruns the norm when that module's output gradient arrives;
      mlp        transformer_layer.py recompute_mlp: tensor_parallel.checkpoint
                 of the whole dense MLP (not MoE layers);
      moe        moe/moe_layer.py moe_layer_recompute: tensor_parallel.checkpoint
                 of the whole MoE layer, router included;
      moe_act    moe/experts.py: the expert activation in a
                 CheckpointWithoutOutput, discarded once fc2 has read it.
    CheckpointWithoutOutput is re-implemented here (torch 1.13 has none); a
    discarded output is a saved tensor whose storage is empty, so bytes are
    read when the forward is done.
      shared_experts  moe/moe_layer.py shared_experts_compute:
                 tensor_parallel.checkpoint of the shared experts (the
                 moe-shared layer; the moe module's checkpoint covers them).
    mla_up_proj needs multi-latent attention, which these layers do not have.
  * opsac: torchtitan's op-level selective checkpointing (distributed/
    activation_checkpoint.py _apply_op_sac, _custom_policy, with the
    _op_sac_save_list of models/llama3/parallelize.py and the default
    per_op_sac_force_recompute_mm_shapes_by_fqns = ["moe.router.gate"]).
    torch 1.13 lacks create_selective_checkpoint_contexts (torch >= 2.4), so
    the policy is emulated with 1.13's pieces: the block runs under the
    non-reentrant torch.utils.checkpoint (which keeps the block's input and
    recomputes everything else in backward) inside a TorchDispatchMode
    (OpSAC) that applies torchtitan's policy op by op: it counts aten.mm
    calls, skips the router gate's shape, keeps the output of each op of
    the save list (of those 1.13 has: aten.mm, aten.max) but every second mm
    (MUST_SAVE), and in the recompute returns the kept outputs instead of
    rerunning those ops (PREFER_RECOMPUTE for the rest), which is what
    torch's _CachingTorchDispatchMode / _CachedTorchDispatchMode do. What
    the policy holds is the checkpoint's input plus the kept outputs; they
    are recorded with the aten op as grad_fn. The layer runs as torchtitan
    writes it: separate wq, wk, wv (three mms), w2(silu(w1 x) * w3 x), and
    routed experts as batched matmuls standing in for torch._grouped_mm
    (neither in the save list). The SDPA ops of the save list do not exist
    in 1.13; the attention is eager and its bmms and softmax are recomputed.
    torch >= 2.4 with the real API and this save list should hold the same
    bytes: the same input and the same mm outputs. torchtitan after
    114151ad4 (March 2026) saves torch's compute-intensive ops instead (bmm
    and topk among them), which this does not measure.

Every run's backward is checked against the same layer without recompute
(gradients within 1% of their largest element). Tensors are counted once per
storage; parameters, buffers and constants are not counted.
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
from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402
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


class _WithoutOutputFn(torch.autograd.Function):
    """Megatron-Core's CheckpointWithoutOutputFunction (megatron/core/
    tensor_parallel/random.py): runs fn under no_grad, saves its tensor
    arguments, and in backward back-propagates through the outputs the
    recompute hook rebuilt."""

    @staticmethod
    def forward(ctx, fn, owner, *args):
        with torch.no_grad():
            out = fn(*args)
        ctx.save_for_backward(*args)
        owner.ctx = ctx
        return out

    @staticmethod
    def backward(ctx, *grads):
        torch.autograd.backward(ctx.outputs, grads)
        return (None, None) + tuple(t.grad for t in ctx.inputs)


class CheckpointWithoutOutput:
    """Megatron-Core's tensor_parallel.CheckpointWithoutOutput: checkpoint()
    keeps the inputs of fn; discard_output_and_register_recompute(t) frees
    the output's storage (storage resize to 0; the next linear that saved it
    holds an empty storage) and reruns fn when t's gradient arrives, before
    that linear's backward reads the storage again."""

    def checkpoint(self, fn, *args):
        self.fn, self.rng = fn, torch.get_rng_state()
        self.out = _WithoutOutputFn.apply(fn, self, *args)
        return self.out

    def discard_output_and_register_recompute(self, hook_tensor):
        self.out.storage().resize_(0)
        hook_tensor.register_hook(self._recompute)

    def _recompute(self, _):
        if self.ctx is None:
            return
        inputs = [t.detach().requires_grad_(t.requires_grad) for t in self.ctx.saved_tensors]
        with torch.random.fork_rng():
            torch.set_rng_state(self.rng)
            with torch.enable_grad():
                out = self.fn(*inputs)
        st = self.out.storage()
        st.resize_(out.storage().size())
        st.copy_(out.storage())
        self.ctx.outputs, self.ctx.inputs = (out,), inputs
        self.ctx = None


MM_OPS = (torch.ops.aten.mm.default,)  # aten.linear decomposes to aten.mm on the CPU
SAVE_OPS = {torch.ops.aten.mm.default, torch.ops.aten.max.default}  # of torchtitan's list, those 1.13 has


class OpSAC(TorchDispatchMode):
    """torchtitan's op-level policy (_apply_op_sac, _custom_policy) over
    torch 1.13's non-reentrant checkpoint. In the forward pass it counts
    the block's aten.mm calls (skipping those whose right-hand side has a
    force-recomputed shape, the router gate's) and keeps the output of
    every op in the save list but every second mm (MUST_SAVE); in the
    recompute it serves those ops from the cache and reruns the rest
    (PREFER_RECOMPUTE), as torch's _CachingTorchDispatchMode and
    _CachedTorchDispatchMode do."""

    def __init__(self, state):
        super().__init__()
        self.state = state

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is torch.ops.aten.detach.default and not isinstance(args[0], torch.Tensor):
            # 1.13's checkpoint detaches what the recompute saves, the softmax
            # scale too, which reaches the mode as a python float
            return torch.tensor(args[0], dtype=torch.float64)
        st = self.state
        save = func in SAVE_OPS
        if func in MM_OPS:
            if tuple(args[1].shape) in st["force_recompute"]:
                save = False
            else:
                st["mm"] += 1
                save = save and st["mm"] % 2 == 1
        if not save:
            return func(*args, **kwargs)
        if st["recompute"]:
            return st["cache"].pop(0).detach()
        out = func(*args, **kwargs)
        st["cache"].append(out.detach())
        st["ops"].append(str(func))
        return out


def op_sac(block, x, force_recompute):
    """Runs block(x) under the op-level policy; returns the output and what
    the policy holds for backward: the checkpoint's input and the cached
    outputs, with the op that produced each."""
    state = {"mm": 0, "recompute": False, "cache": [], "ops": [], "force_recompute": force_recompute}
    calls = [0]

    def run(inp):
        state["recompute"], state["mm"] = calls[0] > 0, 0
        if state["recompute"]:
            state["cache"] = list(held)
        calls[0] += 1
        with OpSAC(state):
            return block(inp)

    y = checkpoint(run, x, use_reentrant=False)
    held = list(state["cache"])
    return y, [(x, "")] + list(zip(held, state["ops"]))


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
            if m.get("shared"):
                fs = m["shared"] * m["shared_ffn"]
                self.shared1, self.shared2 = param(2 * fs, h), param(h, fs)
        else:
            f = c["ffn"]
            width = 2 * f if c["mlp"] == "swiglu" else f
            self.w1, self.w2 = param(width, h), param(h, f)
        self.mods, self.sac = set(), False  # set by measure
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
        """The attention block up to the output projection (its dropout is
        the caller's, Megatron's bias-dropout-add)."""
        c = self.c
        b, s, _ = x.shape
        a, kv, d = c["heads"], c["kv_heads"], c["head_dim"]
        if self.sac:  # torchtitan's wq, wk, wv: three mms
            w = self.wqkv.split([a * d, kv * d, kv * d], 0)
            q, k, v = (F.linear(x, wi) for wi in w)
        else:  # Megatron's fused linear_qkv
            qkv = F.linear(x, self.wqkv)
            q, k, v = qkv.split([a * d, kv * d, kv * d], -1)
        q, k, v = q + self.delta("q", x), k + self.delta("k", x), v + self.delta("v", x)
        q = q.view(b, s, a, d).transpose(1, 2).contiguous()  # (b, a, s, d)
        k = k.view(b, s, kv, d).transpose(1, 2).contiguous()
        v = v.view(b, s, kv, d).transpose(1, 2).contiguous()
        if "core_attn" in self.mods:
            # attention.py, _checkpointed_attention_forward: tensor_parallel.checkpoint
            # (a reentrant CheckpointFunction that saves its tensor inputs) around the core
            o = checkpoint(self.core, q, k, v, use_reentrant=True)
        else:
            o = self.core(q, k, v)
        return F.linear(o, self.wo) + self.delta("o", o)

    def core(self, q, k, v):
        """Q K^T, the scale and mask, softmax, dropout and P V: Megatron's
        core attention."""
        b, a, s, d = q.shape
        kv = k.shape[1]
        g = a // kv
        outs = []
        for j in range(kv):
            qg = q[:, j * g:(j + 1) * g].reshape(b, g * s, d)
            scores = torch.bmm(qg, k[:, j].transpose(1, 2)) * (1 / math.sqrt(d)) + self.mask
            p = self.dropout(torch.softmax(scores, -1))
            outs.append(torch.bmm(p, v[:, j]).view(b, g, s, d))
        return torch.cat(outs, 1).transpose(1, 2).reshape(b, s, a * d)

    def mlp(self, x):
        if self.c["mlp"] == "swiglu":
            if self.sac:  # torchtitan's w2(silu(w1 x) * w3 x)
                w1, w3 = self.w1.chunk(2, 0)
                return F.linear(F.silu(F.linear(x, w1)) * F.linear(x, w3), self.w2)
            gu = F.linear(x, self.w1)
            if "gate_a" in self.adapters or "up_a" in self.adapters:
                g, u = gu.chunk(2, -1)
                gu = torch.cat([g + self.delta("gate", x), u + self.delta("up", x)], -1)
            z = SwiGLUFn.apply(gu)
            return F.linear(z, self.w2) + self.delta("down", z)
        return F.linear(F.gelu(F.linear(x, self.w1)), self.w2)

    def expert(self, e, xe):
        """One routed expert: fc1 (gate and up), SwiGLU, fc2. Under
        moe_act the activation runs in a CheckpointWithoutOutput whose
        output is discarded once fc2 has read it (moe/experts.py). Under
        the op-level policy the expert GEMMs are batched matmuls, as
        torchtitan's torch._grouped_mm, which is not in the save list."""
        w1, w2 = self.experts[2 * e], self.experts[2 * e + 1]
        if self.sac:
            g, u = w1.chunk(2, 0)
            bmm = lambda t, w: torch.bmm(t.unsqueeze(0), w.t().unsqueeze(0)).squeeze(0)  # noqa: E731
            return bmm(F.silu(bmm(xe, g)) * bmm(xe, u), w2)
        fc1 = F.linear(xe, w1)
        if "moe_act" in self.mods:
            ck = CheckpointWithoutOutput()
            out = F.linear(ck.checkpoint(SwiGLUFn.apply, fc1), w2)
            ck.discard_output_and_register_recompute(out)
            return out
        return F.linear(SwiGLUFn.apply(fc1), w2)

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
            ye = self.expert(e, t[rows])
            out = out.index_put((rows,), ye * w[rows, slot].unsqueeze(-1), accumulate=True)
        if m.get("shared"):
            if "shared_experts" in self.mods:
                # moe/moe_layer.py shared_experts_compute: tensor_parallel.checkpoint
                # of the shared experts, their input kept
                out = out + checkpoint(self.shared, t, use_reentrant=True)
            else:
                out = out + self.shared(t)
        return out.view(b, s, h)

    def shared(self, t):
        """The shared experts, one SwiGLU MLP over every token (Megatron-Core's
        SharedExpertMLP; torchtitan's FeedForward with w1, w3, w2)."""
        if self.sac:
            w1, w3 = self.shared1.chunk(2, 0)
            return F.linear(F.silu(F.linear(t, w1)) * F.linear(t, w3), self.shared2)
        return F.linear(SwiGLUFn.apply(F.linear(t, self.shared1)), self.shared2)

    def normed(self, x, w, b):
        """A norm's output; under layernorm, in a CheckpointWithoutOutput
        (transformer_layer.py: input_layernorm_checkpoint,
        pre_mlp_norm_checkpoint), returned with the checkpoint so that the
        caller discards the output once the next module has read it."""
        if "layernorm" not in self.mods:
            return self.norm(x, w, b), None
        ck = CheckpointWithoutOutput()
        return ck.checkpoint(lambda t: self.norm(t, w, b), x), ck

    def forward(self, x):
        hn, ck = self.normed(x, self.n1, self.b1)
        attn = self.attention(hn)
        if ck:
            ck.discard_output_and_register_recompute(attn)
        x = x + self.dropout(attn)
        y, ck = self.normed(x, self.n2, self.b2)
        mlp = self.moe if self.c.get("moe") else self.mlp
        if "moe" in self.mods and self.c.get("moe") or "mlp" in self.mods and not self.c.get("moe"):
            # transformer_layer.py (recompute_mlp, dense layers) and moe/moe_layer.py
            # (moe_layer_recompute): tensor_parallel.checkpoint of the whole MLP
            out = checkpoint(mlp, y, use_reentrant=True)
        else:
            out = mlp(y)
        if ck:
            ck.discard_output_and_register_recompute(out)
        return x + self.dropout(out)


def modules(recompute):
    """The Megatron recompute modules of a plan's recompute string."""
    if recompute == "selective":
        return {"core_attn"}  # Megatron's default recompute_modules
    if recompute.startswith("selective["):
        return set(recompute[len("selective["):-1].split(","))
    return set()


def run(c, recompute):
    """One forward and backward of the layer under a policy: the saved
    tensors (per storage, with their bytes once the forward is done, so a
    discarded output counts 0) and the gradients."""
    torch.manual_seed(0)
    layer = Layer(c)
    layer.mods, layer.sac = modules(recompute), recompute.startswith("opsac")
    skip = {p.storage().data_ptr() for p in layer.parameters()} | {bf.storage().data_ptr() for bf in layer.buffers()}
    x = torch.randn(c["batch"], c["seq"], c["hidden"], dtype=DT, requires_grad=True)
    seen, held = set(), []

    def keep(t, grad_fn):
        # per storage (the StorageImpl: a storage freed by a discard may hand
        # its address to a later tensor); held keeps each one alive
        key = t.storage()._storage._cdata
        if key not in seen and t.storage().data_ptr() not in skip:
            seen.add(key)
            held.append((t, grad_fn))

    def pack(t):
        keep(t, type(t.grad_fn).__name__ if t.grad_fn else "")
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        if recompute == "full":
            y = checkpoint(layer, x, use_reentrant=True)
        elif recompute == "opsac":
            gate = {(c["hidden"], c["moe"]["experts"])} if c.get("moe") else set()  # moe.router.gate
            y, cached = op_sac(layer, x, gate)
            for t, op in cached:
                keep(t, op)
        else:
            y = layer(x)
    saved = [{"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""),
              "bytes": t.storage().nbytes(), "grad_fn": g} for t, g in held]
    y.float().sum().backward()  # the saved tensors suffice for the backward
    grads = [x.grad] + [p.grad for p in layer.parameters() if p.requires_grad]
    return saved, grads


def measure(c, recompute):
    """The saved tensors under a policy, after checking that its backward
    gives the gradients of the same layer without recompute."""
    saved, grads = run(c, recompute)
    _, ref = run(c, "opsac-reference" if recompute == "opsac" else "none")
    for g, r in zip(grads, ref):
        if g is None and r is None:
            continue  # a parameter the layer does not use (the norm bias under RMSNorm)
        if g is None or r is None or not torch.allclose(g.float(), r.float(), rtol=0, atol=1e-6 + 1e-2 * r.float().abs().max().item()):
            raise SystemExit(f"{c['name']} {recompute}: gradients differ from the run without recompute")
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
    {"name": "moe-shared", "hidden": 256, "heads": 8, "kv_heads": 2, "head_dim": 32, "ffn": 0, "seq": 128, "batch": 2,
     "norm": "rmsnorm", "mlp": "swiglu", "dropout": False,
     "moe": {"experts": 8, "top_k": 2, "expert_ffn": 128, "shared": 1, "shared_ffn": 256}},
]


def policies(c):
    """The recompute policies measured for a layer, as the planner's plan
    strings: none, full, Megatron's selective (core_attn), each Megatron
    recompute module that the layer has alone and in combination, and
    torchtitan's op-level policy. The LoRA layers are measured without
    recompute, under full checkpointing and under selective (core_attn)."""
    if c.get("lora"):
        return ["none", "full", "selective"]
    if c.get("moe", {}).get("shared"):
        mods = ["selective[moe]", "selective[shared_experts]", "selective[moe_act,shared_experts]"]
    elif c.get("moe"):
        mods = ["selective[layernorm]", "selective[moe]", "selective[moe_act]",
                "selective[core_attn,layernorm,moe_act]", "selective[layernorm,moe]"]
    else:
        mods = ["selective[layernorm]", "selective[mlp]", "selective[core_attn,layernorm,mlp]"]
    return ["none", "full", "selective"] + mods + ["opsac"]


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "costmodel", "testdata", "activations")
    os.makedirs(out, exist_ok=True)
    result = {"torch": torch.__version__, "dtype": "bfloat16", "layers": []}
    rows = []
    for c in CONFIGS:
        entry = {"config": c, "modes": {}}
        for mode in policies(c):
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
