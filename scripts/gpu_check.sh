#!/usr/bin/env bash
# The GPU paths in one short run (a few minutes on one GPU), for a machine with
# requirements-gpu.txt installed. Nothing is downloaded: the model is a tiny local Qwen2 with
# head_dim 64 (what vLLM's attention kernels accept). Prints one line per check; exits non-zero
# on the first failure.
#   bash scripts/gpu_check.sh [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-runs/gpu_check}
PY=${PY:-python}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
$PY -c "import torch, vllm; print('torch', torch.__version__, 'cuda', torch.cuda.is_available(), 'vllm', vllm.__version__)"

# a GPU-friendly tiny model: hidden 256, 4 heads of 64
$PY - "$OUT" <<'EOF'
import sys
from utils.tiny import TinySpec, build_tiny
print("model", build_tiny(f"{sys.argv[1]}/tiny", TinySpec(hidden_size=256, intermediate_size=512, num_attention_heads=4,
                                                          num_key_value_heads=2)))
EOF

# 1. vLLM rollouts: per-prompt seeds are reproducible, n samples differ, log-probs match HF's;
# 2. weight sync: perturbed HF weights pushed into vLLM change its log-probs to HF's new ones.
$PY - "$OUT" <<'EOF'
import sys, torch
from transformers import AutoModelForCausalLM
from utils.engine import EngineConfig, SamplingParams, chat, make_engine
path = f"{sys.argv[1]}/tiny"
eng = make_engine(EngineConfig(backend="vllm", model=path, dtype="float32", gpu_memory_utilization=0.3,
                               max_model_len=1024))
prompts = [chat("Sort 3 1 2"), chat("Sort 9 4 7 1")]
p = SamplingParams(n=4, max_tokens=24, temperature=1.0, logprobs=True, seed=0)
a, b = eng.generate(prompts, p), eng.generate(prompts, p)
assert [[c.token_ids for c in r] for r in a] == [[c.token_ids for c in r] for r in b], "seeded rollouts differ"
assert len({tuple(c.token_ids) for c in a[0]}) > 1, "the n samples are identical"
hf = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32).cuda()

def gap(comp):
    ids = torch.tensor([comp.prompt_token_ids + comp.token_ids]).cuda()
    with torch.no_grad():
        lp = torch.log_softmax(hf(ids).logits[0, :-1].float(), -1)
    L = len(comp.prompt_token_ids)
    ref = torch.tensor([lp[L - 1 + k, t].item() for k, t in enumerate(comp.token_ids)])
    return (ref - torch.tensor(comp.logprobs)).abs().max().item()

print(f"vllm rollouts: ok; max |logp vllm - hf| = {gap(a[0][0]):.2e}")
with torch.no_grad():
    for prm in hf.parameters():
        prm.add_(0.05 * torch.randn_like(prm))
eng.sync_weights(hf.state_dict().items())
c = eng.generate(prompts[:1], p)[0][0]
assert gap(c) < 1e-2, f"after sync, vLLM disagrees with the new weights ({gap(c):.2e})"
print(f"weight sync: ok; max |logp vllm - hf| after sync = {gap(c):.2e}")
EOF

# 3. FSDP2 SFT on one GPU, then resume; 4. RL with colocated vLLM (sync after each step).
$PY - "$OUT" <<'EOF'
import json, sys
from utils.records import write_jsonl
out = sys.argv[1]
write_jsonl(f"{out}/sft.jsonl", [{"prompt": f"Sort {a} {b}", "response": f"<answer>{min(a, b)} {max(a, b)}</answer>"}
                                 for a in range(10) for b in range(10)])
EOF
torchrun --standalone --nproc_per_node 1 train.py stage=sft name=sft out_dir="$OUT" model="$OUT/tiny" \
    strategy=fsdp "sft.data=[$OUT/sft.jsonl]" sft.max_steps=4 sft.batch_size=16 sft.micro_batch_size=8 save_every=2
torchrun --standalone --nproc_per_node 1 train.py stage=sft name=sft out_dir="$OUT" model="$OUT/tiny" \
    strategy=fsdp "sft.data=[$OUT/sft.jsonl]" sft.max_steps=6 sft.batch_size=16 sft.micro_batch_size=8 save_every=2 resume=true
echo "fsdp2 sft + resume: ok"
torchrun --standalone --nproc_per_node 1 train.py stage=rl name=rl out_dir="$OUT" model="$OUT/sft/final" \
    "data.sources=[{env: sorting, difficulty: 0}]" rl.steps=3 rl.batch_size=32 rl.group_size=8 rl.minibatches=2 \
    rl.micro_batch_size=16 rl.max_tokens=32 rl.engine.backend=vllm rl.engine.gpu_memory_utilization=0.3 \
    rl.engine.max_model_len=1024 strategy=ddp save_every=100
tail -n 1 "$OUT/rl/metrics.jsonl"
echo "rl with colocated vllm: ok"
