"""Log-probabilities of a given continuation after a given prompt: ``log p(continuation | prompt)`` per token.

What UPR (:mod:`surge_dataset.retrieval.upr`) scores a passage by. Two ways to read them:

* a local ``hf:``/``gguf:`` model (:func:`local_continuation_logprobs`): one forward pass over prompt +
  continuation, batched (length-sorted, right-padded: a causal model's real tokens never see the padding, so a
  row's numbers do not depend on its batch), under ``torch.inference_mode()``;
* an OpenAI-compatible server (:func:`server_continuation_logprobs`): the legacy completions endpoint with
  ``echo=True`` and ``logprobs``, which returns the prompt's own token log-probabilities. vLLM and llama.cpp's
  server answer it; OpenAI's hosted chat models do not (no ``echo`` with ``logprobs``): such a server is a
  :class:`~surge_dataset.llm.base.LLMConfigurationError` saying so, never a silent zero.

The prompt is tokenised with the tokenizer's special tokens (a BOS when the model wants one), the
continuation without, and the two id lists are concatenated, so the continuation's tokens are the same
whatever precedes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from surge_dataset.llm.base import LLMConfigurationError

__all__ = ["local_continuation_logprobs", "server_continuation_logprobs"]


def local_continuation_logprobs(backend: Any, pairs: Sequence[tuple[str, str]], batch_size: int) -> list[list[float]]:
    """Per pair, the log-probability of each continuation token given everything before it (a local model)."""
    import torch

    tokenizer, model = backend.tokenizer, backend.model
    limit = backend.context_length()
    rows: list[tuple[list[int], int]] = []  # (ids, where the continuation starts)
    for prompt, continuation in pairs:
        head = tokenizer.encode(prompt, add_special_tokens=True)
        tail = tokenizer.encode(continuation, add_special_tokens=False)
        if not tail:
            raise ValueError(f"empty continuation after prompt {prompt[:60]!r}")
        if limit and len(head) + len(tail) > limit:  # keep the prompt's end: the instruction sits there
            head = head[-max(1, limit - len(tail)):]
        rows.append((head + tail, len(head)))
    out: list[list[float]] = [[] for _ in rows]
    order = sorted(range(len(rows)), key=lambda i: -len(rows[i][0]))
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    device = model.get_input_embeddings().weight.device
    for start in range(0, len(order), max(1, batch_size)):
        chunk = order[start : start + batch_size]
        width = max(len(rows[i][0]) for i in chunk)
        ids = torch.full((len(chunk), width), pad, dtype=torch.long)
        mask = torch.zeros((len(chunk), width), dtype=torch.long)
        for row, i in enumerate(chunk):
            tokens = rows[i][0]
            ids[row, : len(tokens)] = torch.tensor(tokens)
            mask[row, : len(tokens)] = 1
        with torch.inference_mode():
            logits = model(input_ids=ids.to(device), attention_mask=mask.to(device)).logits
            for row, i in enumerate(chunk):
                tokens, begin = rows[i]
                # the logits at position t predict token t + 1
                predicted = torch.log_softmax(logits[row, begin - 1 : len(tokens) - 1].float(), dim=-1)
                target = ids[row, begin : len(tokens)].to(predicted.device)
                out[i] = predicted.gather(1, target[:, None])[:, 0].double().cpu().tolist()
    return out


def server_continuation_logprobs(backend: Any, pairs: Sequence[tuple[str, str]]) -> list[list[float]]:
    """The same through an OpenAI-compatible server's completions endpoint (``echo=True``, ``logprobs=1``)."""
    import openai

    client = backend.client()
    out = []
    for prompt, continuation in pairs:
        text = prompt + continuation
        try:
            response = client.completions.create(model=backend.model, prompt=text, echo=True, logprobs=1,
                                                 max_tokens=1, temperature=0)
        except openai.APIStatusError as exc:
            raise _unsupported(backend, f"HTTP {exc.status_code}") from None
        choice = response.choices[0] if getattr(response, "choices", None) else None
        logprobs = getattr(choice, "logprobs", None)
        offsets = getattr(logprobs, "text_offset", None)
        values = getattr(logprobs, "token_logprobs", None)
        if not offsets or not values:
            raise _unsupported(backend, "no prompt log-probabilities in the answer")
        picked = [float(v) for o, v in zip(offsets, values, strict=False)
                  if len(prompt) <= o < len(text) and v is not None]
        if not picked:
            raise _unsupported(backend, "the echoed prompt does not cover the continuation")
        out.append(picked)
    return out


def _unsupported(backend: Any, why: str) -> LLMConfigurationError:
    return LLMConfigurationError(
        f"openai:{backend.model} cannot score text ({why}): log-probabilities of a given text need the completions "
        "endpoint with echo=True and logprobs (vLLM, llama.cpp's server); OpenAI's hosted chat models do not offer "
        "it -- use an hf: or gguf: model for UPR"
    )
