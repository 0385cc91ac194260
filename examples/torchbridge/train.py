#!/usr/bin/env python3
"""PyTorch side of icrl's bridge: train on an exported dataset, write weights Go loads.

Standard library, numpy and torch only (Debian: apt-get install python3-torch).

  python3 train.py train DATA OUT [--layers 2 --heads 4 --width 64 --ff 256 ...]
      Train on DATA (a dataset file or a shard index .json written by Go's
      transformer/dataset) and write OUT (a safetensors file in this
      script's layout, the "torch" layout of transformer.ImportTorch; with
      --gpt2, GPT-2's names, for transformer.ImportGPT2). Runs on any device
      torch sees (--device), and with torch.nn.parallel.DistributedDataParallel
      when launched by torchrun on several GPUs or machines:
          torchrun --nproc_per_node=8 train.py train DATA OUT ...
      With --init WEIGHTS, fine-tune weights that Go wrote
      (transformer.Model.SaveTorch) instead of starting afresh.
  python3 train.py fixtures DIR
      Write the golden fixtures of icrl's Go tests (small models, inputs and
      the logits PyTorch computes for them) to DIR.

The model mirrors transformer.Config: token embedding or linear feature
read-in, learned positions, pre-/post-/no LayerNorm, softmax or ReLU
attention, ReLU or exact GELU MLP, optional final LayerNorm, linear head.
Linear weights are nn.Linear's [out, in]; Go stores [in, out] and
transposes on import and export.
"""
import argparse
import json
import math
import os
import struct
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

# ---------------------------------------------------------------------------
# safetensors, read and written with the standard library and numpy.

_DTYPES = {"F32": np.float32, "F64": np.float64, "I64": np.int64, "I32": np.int32,
           "F16": np.float16, "U8": np.uint8, "BOOL": np.bool_}
_NAMES = {np.dtype(v): k for k, v in _DTYPES.items()}


def load_safetensors(path):
    """Return ({name: numpy array}, metadata dict) of a safetensors file."""
    with open(path, "rb") as f:
        raw = f.read()
    if len(raw) < 8:
        raise ValueError(f"{path}: too short for a safetensors header")
    (n,) = struct.unpack("<Q", raw[:8])
    if 8 + n > len(raw):
        raise ValueError(f"{path}: header length {n} exceeds the file")
    header = json.loads(raw[8:8 + n])
    data = memoryview(raw)[8 + n:]
    meta = header.pop("__metadata__", {}) or {}
    out = {}
    for name, e in header.items():
        dt = _DTYPES[e["dtype"]]
        b, end = e["data_offsets"]
        arr = np.frombuffer(data[b:end], dtype=np.dtype(dt).newbyteorder("<"))
        out[name] = arr.reshape(e["shape"]).copy()
    return out, meta


def save_safetensors(path, tensors, metadata=None):
    """Write {name: array} (and string metadata) as a safetensors file."""
    header, chunks, off = {}, [], 0
    if metadata:
        header["__metadata__"] = {k: str(v) for k, v in metadata.items()}
    for name in sorted(tensors):
        a = np.ascontiguousarray(tensors[name])
        a = a.astype(a.dtype.newbyteorder("<"), copy=False)
        b = a.tobytes()
        header[name] = {"dtype": _NAMES[np.dtype(a.dtype.type)],
                        "shape": list(a.shape), "data_offsets": [off, off + len(b)]}
        chunks.append(b)
        off += len(b)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for c in chunks:
            f.write(c)
    os.replace(tmp, path)


# ---------------------------------------------------------------------------
# The model of transformer.Config.

class Config:
    def __init__(self, layers, heads, width, feed_forward, outputs, vocab=0, features=0,
                 max_len=1024, attention=0, norm=0, final_norm=False, positions=0,
                 activation=0, no_bias=False, norm_epsilon=1e-5):
        self.layers, self.heads, self.width, self.feed_forward = layers, heads, width, feed_forward
        self.outputs, self.vocab, self.features, self.max_len = outputs, vocab, features, max_len
        self.attention, self.norm, self.final_norm, self.positions = attention, norm, final_norm, positions
        self.activation, self.no_bias, self.norm_epsilon = activation, no_bias, norm_epsilon

    def to_json(self):
        return json.dumps({"layers": self.layers, "heads": self.heads, "width": self.width,
                           "feed_forward": self.feed_forward, "vocab": self.vocab,
                           "features": self.features, "outputs": self.outputs,
                           "max_len": self.max_len, "attention": self.attention, "norm": self.norm,
                           "final_norm": self.final_norm, "positions": self.positions,
                           "activation": self.activation, "no_bias": self.no_bias,
                           "norm_epsilon": self.norm_epsilon})


def causal_attention(q, k, v, relu):
    """q, k, v: [B, H, T, dh]; causal softmax or ReLU attention (1/i-normalised)."""
    T, dh = q.shape[-2], q.shape[-1]
    s = q @ k.transpose(-1, -2) / math.sqrt(dh)
    mask = torch.ones(T, T, dtype=torch.bool, device=q.device).tril()
    if relu:
        w = torch.relu(s).masked_fill(~mask, 0)
        w = w / torch.arange(1, T + 1, device=q.device, dtype=q.dtype).view(T, 1)
    else:
        w = torch.softmax(s.masked_fill(~mask, float("-inf")), dim=-1)
    return w @ v


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        d, bias = c.width, not c.no_bias
        self.c = c
        self.attn = nn.Module()
        self.mlp = nn.Module()
        if c.norm != 2:
            self.attn.norm = nn.LayerNorm(d, eps=c.norm_epsilon)
            self.mlp.norm = nn.LayerNorm(d, eps=c.norm_epsilon)
        self.attn.qkv = nn.Linear(d, 3 * d, bias=bias)
        self.attn.out = nn.Linear(d, d, bias=bias)
        self.mlp.up = nn.Linear(d, c.feed_forward, bias=bias)
        self.mlp.down = nn.Linear(c.feed_forward, d, bias=bias)

    def _attn(self, x):
        B, T, d = x.shape
        H = self.c.heads
        q, k, v = self.attn.qkv(x).split(d, dim=-1)
        q, k, v = (t.view(B, T, H, d // H).transpose(1, 2) for t in (q, k, v))
        o = causal_attention(q, k, v, self.c.attention == 1)
        return self.attn.out(o.transpose(1, 2).reshape(B, T, d))

    def _mlp(self, x):
        h = self.mlp.up(x)
        h = torch.relu(h) if self.c.activation == 0 else F.gelu(h, approximate="tanh" if self.c.activation == 2 else "none")
        return self.mlp.down(h)

    def forward(self, x):
        if self.c.norm == 0:  # pre
            x = x + self._attn(self.attn.norm(x))
            return x + self._mlp(self.mlp.norm(x))
        if self.c.norm == 1:  # post
            x = self.attn.norm(x + self._attn(x))
            return self.mlp.norm(x + self._mlp(x))
        x = x + self._attn(x)
        return x + self._mlp(x)


class Model(nn.Module):
    """transformer.Config's model, with PyTorch names and layouts."""

    def __init__(self, c):
        super().__init__()
        self.c = c
        self.embed = nn.Module()
        if c.vocab > 0:
            self.embed.tokens = nn.Embedding(c.vocab, c.width)
        else:
            self.embed.features = nn.Linear(c.features, c.width, bias=not c.no_bias)
        if c.positions == 0:
            self.embed.positions = nn.Embedding(c.max_len, c.width)
        self.layers = nn.ModuleList([Block(c) for _ in range(c.layers)])
        if c.final_norm:
            self.final_norm = nn.LayerNorm(c.width, eps=c.norm_epsilon)
        self.head = nn.Linear(c.width, c.outputs, bias=not c.no_bias)

    def forward(self, x):
        """x: LongTensor [B, T] of tokens, or [B, T, features] floats."""
        T = x.shape[1]
        h = self.embed.tokens(x) if self.c.vocab > 0 else self.embed.features(x)
        if self.c.positions == 0:
            h = h + self.embed.positions(torch.arange(T, device=x.device))
        for b in self.layers:
            h = b(h)
        if self.c.final_norm:
            h = self.final_norm(h)
        return self.head(h)


class GPT2Style(nn.Module):
    """A GPT-2 block stack with Hugging Face's names (wte/wpe, h.N.ln_1,
    attn.c_attn, attn.c_proj, ln_2, mlp.c_fc, mlp.c_proj, ln_f; Conv1D
    weights stored [in, out]) and the in-context papers' read-in
    (read_in, nn.Linear) and read-out (read_out, nn.Linear) around it."""

    def __init__(self, c):
        super().__init__()
        assert c.norm == 0 and c.final_norm and c.positions == 0 and not c.no_bias and c.attention == 0
        self.c, d = c, c.width
        if c.vocab > 0:
            self.wte = nn.Embedding(c.vocab, d)
        else:
            self.read_in = nn.Linear(c.features, d)
        self.wpe = nn.Embedding(c.max_len, d)
        self.h = nn.ModuleList()
        for _ in range(c.layers):
            blk = nn.Module()
            blk.ln_1, blk.ln_2 = nn.LayerNorm(d, eps=c.norm_epsilon), nn.LayerNorm(d, eps=c.norm_epsilon)
            blk.attn, blk.mlp = nn.Module(), nn.Module()
            blk.attn.c_attn = _Conv1D(d, 3 * d)
            blk.attn.c_proj = _Conv1D(d, d)
            blk.mlp.c_fc = _Conv1D(d, c.feed_forward)
            blk.mlp.c_proj = _Conv1D(c.feed_forward, d)
            self.h.append(blk)
        self.ln_f = nn.LayerNorm(d, eps=c.norm_epsilon)
        self.read_out = nn.Linear(d, c.outputs)

    def forward(self, x):
        B, T = x.shape[0], x.shape[1]
        d, H = self.c.width, self.c.heads
        h = self.wte(x) if self.c.vocab > 0 else self.read_in(x)
        h = h + self.wpe(torch.arange(T, device=x.device))
        for blk in self.h:
            q, k, v = blk.attn.c_attn(blk.ln_1(h)).split(d, dim=-1)
            q, k, v = (t.view(B, T, H, d // H).transpose(1, 2) for t in (q, k, v))
            o = causal_attention(q, k, v, False).transpose(1, 2).reshape(B, T, d)
            h = h + blk.attn.c_proj(o)
            m = blk.mlp.c_fc(blk.ln_2(h))
            m = torch.relu(m) if self.c.activation == 0 else F.gelu(m, approximate="tanh" if self.c.activation == 2 else "none")
            h = h + blk.mlp.c_proj(m)
        return self.read_out(self.ln_f(h))


class _Conv1D(nn.Module):
    """GPT-2's Conv1D: a linear map with weight [in, out]."""

    def __init__(self, nin, nout):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(nin, nout) * 0.02)
        self.bias = nn.Parameter(torch.zeros(nout))

    def forward(self, x):
        return x @ self.weight + self.bias


def state_arrays(model):
    return {k: v.detach().cpu().numpy() for k, v in model.state_dict().items()}


# ---------------------------------------------------------------------------
# Fixtures for the Go tests.

def fixtures(out):
    os.makedirs(out, exist_ok=True)
    cases = [
        # name, class, config, dtype
        ("torch_pre_tokens", Model, Config(2, 2, 16, 32, 3, vocab=5, max_len=16, final_norm=True), torch.float32),
        ("torch_post_features", Model, Config(2, 2, 16, 24, 4, features=3, max_len=16, norm=1, activation=1), torch.float32),
        ("torch_pre_features_f64", Model, Config(1, 2, 16, 32, 3, features=3, max_len=16), torch.float64),
        ("torch_relu_nonorm", Model, Config(2, 2, 16, 32, 3, features=3, max_len=16, norm=2, attention=1, no_bias=True, positions=1), torch.float32),
        ("gpt2_features", GPT2Style, Config(2, 2, 16, 64, 3, features=3, max_len=16, final_norm=True, activation=1), torch.float32),
        ("gpt2_tokens", GPT2Style, Config(2, 2, 16, 64, 3, vocab=6, max_len=16, final_norm=True), torch.float32),
    ]
    for i, (name, cls, c, dt) in enumerate(cases):
        torch.manual_seed(100 + i)
        m = cls(c).to(dt)
        with torch.no_grad():  # non-trivial LayerNorm gains and biases
            for p in m.parameters():
                p.add_(0.1 * torch.randn_like(p))
        m.eval()
        g = torch.Generator().manual_seed(200 + i)
        if c.vocab > 0:
            x = torch.randint(0, c.vocab, (2, 7), generator=g)
        else:
            x = torch.randn(2, 7, c.features, generator=g, dtype=dt)
        with torch.no_grad():
            logits = m(x)
        meta = {"config": c.to_json(), "generator": "examples/torchbridge/train.py fixtures",
                "layout": "gpt2" if cls is GPT2Style else "torch"}
        save_safetensors(os.path.join(out, name + ".safetensors"), state_arrays(m), meta)
        io = {"input": x.numpy(), "logits": logits.numpy()}
        save_safetensors(os.path.join(out, name + "_io.safetensors"), io)
        print(f"{name}: {sum(p.numel() for p in m.parameters())} parameters, logits {tuple(logits.shape)}")


# ---------------------------------------------------------------------------
# Training on an exported dataset.

def dataset_files(path):
    """Return the shard files (one for a plain dataset file), their sizes in
    sequences, and the metadata, from the index or the file's header."""
    if path.endswith(".json"):
        with open(path) as f:
            index = json.load(f)
        files = [os.path.join(os.path.dirname(path) or ".", s["file"]) for s in index["shards"]]
        return files, [s["examples"] for s in index["shards"]], index["meta"]
    _, md = load_safetensors(path)
    meta = json.loads(md["meta"])
    return [path], [meta["examples"]], meta


def load_shard(fp):
    """Return the sequences of one dataset file as (input, target, weights)."""
    t, md = load_safetensors(fp)
    if md.get("format") != "icrl-dataset":
        raise ValueError(f"{fp}: not an icrl dataset")
    meta = json.loads(md["meta"])
    off, seqs = t["offsets"], []
    for k in range(len(off) - 1):
        lo, hi = off[k], off[k + 1]
        inp = t["tokens"][lo:hi] if meta["encoding"] == "tokens" else t["features"][lo:hi]
        tgt = t["labels"][lo:hi] if meta["targets"] == "labels" else t["dist"][lo:hi]
        w = t["weights"][lo:hi] if meta["weighted"] else None
        seqs.append((inp, tgt, w))
    return seqs


def shard_schedule(sizes, steps, visit, batch, rng):
    """Plan the steps as visits to one shard at a time (one shard is in
    memory at a time): cycles over the shards in a fresh random order. A
    visit takes visit steps, or with visit 0 about one pass over the shard
    (its size over the batch size), so that the batches of a visit do not
    repeat sequences much and every shard recurs throughout training."""
    if len(sizes) == 1:
        return [(0, steps)]
    plan, done = [], 0
    while done < steps:
        for j in rng.permutation(len(sizes)):
            want = visit if visit > 0 else round(sizes[j] / batch)
            n = min(steps - done, max(1, want))
            plan.append((int(j), n))
            done += n
            if done == steps:
                break
    return plan


def batch_loss(model, batch, meta, device, dtype):
    """Weighted cross-entropy of transformer.Loss over a batch of sequences
    of equal length (the batches are grouped by length)."""
    inp = np.stack([s[0] for s in batch])
    x = torch.as_tensor(inp, device=device)
    x = x.long() if meta["encoding"] == "tokens" else x.to(dtype)
    logp = torch.log_softmax(model(x), dim=-1)
    A = logp.shape[-1]
    if meta["targets"] == "labels":
        lab = torch.as_tensor(np.stack([s[1] for s in batch]), device=device).long()
        p = F.one_hot(lab.clamp(min=0), A).to(logp.dtype) * (lab >= 0).unsqueeze(-1).to(logp.dtype)
    else:
        p = torch.as_tensor(np.stack([s[1] for s in batch]), device=device).to(logp.dtype)
    scored = (p.sum(-1) > 0).to(logp.dtype)
    w = scored if not meta["weighted"] else torch.as_tensor(np.stack([s[2] for s in batch]), device=device).to(logp.dtype) * scored
    ce = -(p * logp).sum(-1)
    return (w * ce).sum(), w.sum()


def train_step(ddp, opt, by_len, rng, step, args, meta, device, dtype, rank, world, distributed):
    """One optimiser step on a batch of one sequence length drawn from the
    loaded shard; returns the next step number."""
    L = rng.choice(sorted(by_len))
    group = by_len[L]
    idx = rng.integers(0, len(group), size=args.batch)
    mine = [group[i] for i in idx[rank::world]]
    loss_sum, w_sum = batch_loss(ddp, mine, meta, device, dtype)
    tot = w_sum.detach().clone()
    if distributed:
        torch.distributed.all_reduce(tot)
    loss = loss_sum * world / tot.clamp(min=1e-12)  # DDP averages gradients over ranks
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % max(1, args.steps // 10) == 0 or step == args.steps - 1:
        shown = loss_sum.detach().clone()
        if distributed:
            torch.distributed.all_reduce(shown)
        if rank == 0:
            print(f"step {step}: loss {(shown / tot.clamp(min=1e-12)).item():.4f}", flush=True)
    return step + 1


def train(args):
    distributed = "RANK" in os.environ and "WORLD_SIZE" in os.environ
    if distributed:
        torch.distributed.init_process_group("nccl" if torch.cuda.is_available() else "gloo")
        rank, world = torch.distributed.get_rank(), torch.distributed.get_world_size()
        local = int(os.environ.get("LOCAL_RANK", 0))
        device = torch.device(f"cuda:{local}") if torch.cuda.is_available() else torch.device("cpu")
    else:
        rank, world = 0, 1
        device = torch.device(args.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    dtype = torch.float64 if args.float64 else torch.float32
    files, sizes, meta = dataset_files(args.data)
    init = None
    if args.init:  # fine-tune weights written by Go (Model.SaveTorch) or by this script
        init, init_meta = load_safetensors(args.init)
        c = Config(**json.loads(init_meta["config"]))
        args.gpt2 = init_meta.get("layout") == "gpt2"
        if (c.vocab, c.features, c.outputs) != (meta.get("vocab", 0), meta.get("width", 0), meta["outputs"]):
            raise ValueError(f"{args.init}: model reads vocab {c.vocab} / features {c.features} with {c.outputs} outputs, "
                             f"the dataset vocab {meta.get('vocab', 0)} / width {meta.get('width', 0)} with {meta['outputs']}")
    else:
        c = Config(args.layers, args.heads, args.width, args.ff, meta["outputs"],
                   vocab=meta.get("vocab", 0), features=meta.get("width", 0), max_len=args.max_len,
                   norm=args.norm, final_norm=args.final_norm or args.gpt2, activation=args.activation,
                   attention=args.attention)
    torch.manual_seed(args.seed)
    model = GPT2Style(c) if args.gpt2 else Model(c)
    if init is not None:
        model.load_state_dict({k: torch.from_numpy(v) for k, v in init.items()}, strict=True)
        dtype = model.head.weight.dtype if not args.gpt2 else model.read_out.weight.dtype
    model = model.to(device=device, dtype=dtype)
    ddp = torch.nn.parallel.DistributedDataParallel(model) if distributed else model
    opt = torch.optim.Adam(ddp.parameters(), lr=args.lr)
    rng = np.random.default_rng(args.seed)
    step = 0
    loaded, by_len = -1, {}
    for shard, n in shard_schedule(sizes, args.steps, args.shard_steps, args.batch, rng):
        if shard != loaded:
            by_len, loaded = {}, shard
            for sq in load_shard(files[shard]):
                by_len.setdefault(len(sq[0]), []).append(sq)
        for _ in range(n):
            step = train_step(ddp, opt, by_len, rng, step, args, meta, device, dtype, rank, world, distributed)
    if rank == 0:
        md = {"config": c.to_json(), "layout": "gpt2" if args.gpt2 else "torch",
              "generator": "examples/torchbridge/train.py", "dataset": os.path.basename(args.data),
              "steps": args.steps, "seed": args.seed}
        save_safetensors(args.out, state_arrays(model), md)
        print(f"wrote {args.out}")
    if distributed:
        torch.distributed.destroy_process_group()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    fx = sub.add_parser("fixtures")
    fx.add_argument("dir")
    tr = sub.add_parser("train")
    tr.add_argument("data")
    tr.add_argument("out")
    tr.add_argument("--layers", type=int, default=2)
    tr.add_argument("--heads", type=int, default=4)
    tr.add_argument("--width", type=int, default=64)
    tr.add_argument("--ff", type=int, default=256)
    tr.add_argument("--max-len", type=int, default=1024)
    tr.add_argument("--norm", type=int, default=0, help="0 pre, 1 post, 2 none")
    tr.add_argument("--final-norm", action="store_true")
    tr.add_argument("--activation", type=int, default=0, help="0 ReLU, 1 GELU, 2 GELU (tanh approximation)")
    tr.add_argument("--attention", type=int, default=0, help="0 softmax, 1 ReLU")
    tr.add_argument("--gpt2", action="store_true", help="GPT-2 names and layout")
    tr.add_argument("--steps", type=int, default=1000)
    tr.add_argument("--batch", type=int, default=16)
    tr.add_argument("--lr", type=float, default=1e-3)
    tr.add_argument("--seed", type=int, default=0)
    tr.add_argument("--float64", action="store_true")
    tr.add_argument("--device", default="")
    tr.add_argument("--shard-steps", type=int, default=0,
                    help="steps a visit to one shard of a sharded dataset (0: one pass, shard size / batch)")
    tr.add_argument("--init", default="", help="start from these weights (their config overrides the architecture flags)")
    args = ap.parse_args()
    if args.cmd == "fixtures":
        fixtures(args.dir)
    else:
        train(args)


if __name__ == "__main__":
    sys.exit(main())
