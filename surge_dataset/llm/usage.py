"""Token counts and prices: the model's tokenizer when it is local, characters / 4 otherwise.

One place for every token count the package reports: the generation sidecars (:class:`TokenCounter`),
the LLM counters when a server reports no ``usage`` (:func:`estimate_tokens`), and the cost estimates of
``--dry-run`` (:func:`parse_price`, :func:`price`). Local tokenizers are loaded without weights.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from surge_dataset.core.errors import SettingError
from surge_dataset.core.vocabulary import GGUF, HF

__all__ = ["ESTIMATE_METHOD", "TokenCounter", "estimate_tokens", "load_tokenizer", "parse_price", "price"]

#: How a count is labelled when no tokenizer was used.
ESTIMATE_METHOD = "estimate: characters / 4"


def estimate_tokens(text: str | None) -> int:
    """About four characters per token (English prose, BPE tokenizers); at least 1 for any text."""
    return max(1, round(len(text) / 4)) if text else 0


@functools.lru_cache(maxsize=8)
def load_tokenizer(spec: str) -> Any:
    """The tokenizer of an ``hf:``/``gguf:`` spec (no weights), once per process; None when it cannot load."""
    try:
        from transformers import AutoTokenizer

        from surge_dataset.llm.base import BackendSpec
        from surge_dataset.llm.local import gguf_location

        parsed = BackendSpec.parse(spec)
        if parsed.kind == GGUF:
            folder, name = gguf_location(parsed.model)
            return AutoTokenizer.from_pretrained(folder, gguf_file=name, trust_remote_code=False)
        if parsed.kind == HF:
            return AutoTokenizer.from_pretrained(parsed.model, trust_remote_code=False)
    except Exception:  # noqa: BLE001 - counting is best effort; fall back to the estimate
        return None
    return None


class TokenCounter:
    """Token counts of prompts and answers for one LLM (anything with ``spec``, maybe ``backend``).

    ``method`` says how: ``tokenizer`` (the model's own tokenizer, chat template applied to prompts;
    hf:/gguf:) or ``estimate: characters / 4`` (openai: servers, or when no tokenizer loads). The
    tokenizer is looked up on the first count: by then a local backend may have loaded its own, which
    is reused.
    """

    def __init__(self, llm: Any) -> None:
        self.llm = llm
        self._tokenizer: Any = None
        self._resolved = False

    @property
    def tokenizer(self) -> Any:
        if not self._resolved:
            spec = str(getattr(self.llm, "spec", ""))
            tokenizer = getattr(getattr(self.llm, "backend", None), "_tokenizer", None)
            if tokenizer is None and spec.split(":", 1)[0] in ("hf", "gguf"):
                tokenizer = load_tokenizer(spec)
            self._tokenizer, self._resolved = tokenizer, True
        return self._tokenizer

    @property
    def method(self) -> str:
        return "tokenizer" if self.tokenizer is not None else ESTIMATE_METHOD

    def count_text(self, text: str | None) -> int:
        if not text:
            return 0
        if self.tokenizer is None:
            return estimate_tokens(text)
        return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def count_prompt(self, messages: Sequence[Any]) -> int:
        pairs = [(m["role"], m["content"]) if isinstance(m, dict) else tuple(m) for m in messages]
        tokenizer = self.tokenizer
        if tokenizer is not None and getattr(tokenizer, "chat_template", None):
            try:
                ids = tokenizer.apply_chat_template(
                    [{"role": r, "content": c} for r, c in pairs], tokenize=True, add_generation_prompt=True
                )
                if isinstance(ids, Mapping):
                    ids = ids["input_ids"]
                return len(ids)
            except Exception:  # noqa: BLE001 - template quirks: count the plain text instead
                pass
        return self.count_text("\n".join(c for _, c in pairs))


def parse_price(text: str | None) -> tuple[float, float] | None:
    """``--price-per-1k IN,OUT`` (currency per 1,000 input and output tokens) -> (IN, OUT); None for none."""
    if text is None or not str(text).strip():
        return None
    parts = [p.strip() for p in str(text).split(",")]  # not parse_list: "1,,2" is an error, not a pair
    try:
        values = [float(p) for p in parts]
    except ValueError:
        values = []
    if len(values) != 2 or any(v < 0 for v in values):
        raise SettingError(f"--price-per-1k {text!r}: expected two non-negative numbers IN,OUT, e.g. 0.0025,0.01")
    return values[0], values[1]


def price(prompt_tokens: int, completion_tokens: int, per_1k: tuple[float, float]) -> float:
    """What the tokens cost at ``per_1k`` = (input, output) per 1,000 tokens."""
    return prompt_tokens / 1000 * per_1k[0] + completion_tokens / 1000 * per_1k[1]
