"""A tiny causal LM + BPE tokenizer built locally (nothing downloaded), saved as an ordinary HF
directory that `AutoModelForCausalLM.from_pretrained` / `AutoTokenizer.from_pretrained` load.

Tests and demos run the real code paths (chat template, generation, SFT, RL) on it in seconds.

    python -m utils.tiny runs/tiny            # or build_tiny("runs/tiny")
"""
from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

# Qwen-style chat template: the same markup as the Qwen models the papers train.
CHAT_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]


@dataclass
class TinySpec:
    vocab_size: int = 1024
    hidden_size: int = 64
    intermediate_size: int = 128
    num_hidden_layers: int = 2
    num_attention_heads: int = 4
    num_key_value_heads: int = 2
    max_position_embeddings: int = 2048
    seed: int = 0


def default_corpus() -> list[str]:
    """Text the tokenizer learns merges from: our prompt/answer vocabulary, digits and grids."""
    words = ("reasoning answer solve puzzle grid row column island bridge bridges pattern undead galaxies "
             "ghost vampire zombie mirror dot region sort sorted numbers the a of to in is and then so check "
             "wait therefore first second case step let suppose assume verify compute count total sum").split()
    lines = [" ".join(words), "<reasoning>\nStep 1: check.\n</reasoning>\n<answer>\n1 2 3\n</answer>"]
    lines += [" ".join(str(i) for i in range(k, k + 20)) for k in range(0, 400, 20)]
    symbols = ".#-=|/GVZ"
    lines += ["".join(symbols[(i * j) % len(symbols)] for i in range(12)) for j in range(40)]
    return lines * 4


def build_tiny(path: str | Path, spec: TinySpec | None = None, corpus: list[str] | None = None) -> Path:
    """Write a tiny Qwen2 model and its tokenizer to `path` (idempotent: an existing build is reused)."""
    spec = spec or TinySpec()
    path = Path(path)
    marker = path / "tiny_spec.json"
    if marker.exists() and json.loads(marker.read_text()) == asdict(spec):
        return path
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=spec.vocab_size, special_tokens=SPECIAL,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(corpus or default_corpus(), trainer=trainer)
    hf_tok = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                     bos_token=None, unk_token=None)
    hf_tok.chat_template = CHAT_TEMPLATE

    torch.manual_seed(spec.seed)
    config = Qwen2Config(vocab_size=len(hf_tok), hidden_size=spec.hidden_size,
                         intermediate_size=spec.intermediate_size, num_hidden_layers=spec.num_hidden_layers,
                         num_attention_heads=spec.num_attention_heads,
                         num_key_value_heads=spec.num_key_value_heads,
                         max_position_embeddings=spec.max_position_embeddings, tie_word_embeddings=True,
                         eos_token_id=hf_tok.eos_token_id, pad_token_id=hf_tok.pad_token_id,
                         bos_token_id=None)
    model = Qwen2ForCausalLM(config)
    model.generation_config.eos_token_id = hf_tok.eos_token_id
    model.generation_config.pad_token_id = hf_tok.pad_token_id
    path.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(path)
    hf_tok.save_pretrained(path)
    marker.write_text(json.dumps(asdict(spec)))
    return path


if __name__ == "__main__":
    print(build_tiny(sys.argv[1] if len(sys.argv) > 1 else "runs/tiny"))
