"""``hf:<model>`` and ``gguf:<file>``: local models through ``transformers``, greedy and batched.

The model is loaded on the first request that misses the cache, so a rerun whose answers are all cached
loads nothing. Conversations go through the tokenizer's chat template; batches are length-sorted and
left-padded. ``device_map="auto"`` spreads a model over several GPUs; one GPU or the CPU otherwise.
GGUF files are de-quantised by ``transformers`` on load (``gguf`` package needed).

Besides text, a local model exposes its next-token distribution, from which the judge reads a
probability-weighted score (expected value over the score tokens): deterministic, no parsing, no retry.
Remote code is never run (``trust_remote_code`` stays off).

Before loading, the process's torch threads are set (:func:`~surge_dataset.models.threads.configure_threads`:
half the usable cores unless ``threads``, ``$SURGE_NUM_THREADS`` or ``$OMP_NUM_THREADS`` say otherwise):
torch's default of one busy-waiting OpenMP worker per core made a small model on a busy 2-core machine
4-5x slower per token.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, MutableMapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from surge_dataset.core.errors import error_text
from surge_dataset.core.vocabulary import GGUF
from surge_dataset.llm.base import (
    BackendSpec,
    Completion,
    Conversation,
    GenerationSettings,
    LLMConfigurationError,
    LLMStats,
    as_messages,
)
from surge_dataset.models.base import digest_weights_file, load_model, model_fingerprint, resolve_dtype
from surge_dataset.models.threads import ThreadChoice, configure_threads

__all__ = ["TransformersBackend", "gguf_location"]

logger = logging.getLogger(__name__)
_GGUF_PATCH_LOCK = threading.Lock()


@contextlib.contextmanager
def _shared_gguf_parsing(readers: MutableMapping[tuple[str, str], Any] | None = None) -> Iterator[None]:
    """Load a GGUF model in about half the time: share one parsed file and one tensor-name map per load.

    ``transformers`` parses the GGUF metadata (the whole vocabulary, element by element) three times per
    load -- config, weights, tokenizer -- and rebuilds ``gguf``'s tensor-name map for every module. Both
    are pure functions of their arguments, so for the duration of the load they are memoised. The
    ``gguf`` attributes are restored afterwards; should ``gguf`` change, loading is merely slower.
    ``readers`` (a caller's dict) keeps the parsed files beyond one load: the backend reads the context
    length from the config first and loads the model just after, and each parse of SmolLM2's file
    takes 10-20 s of a 2-core CPU.
    """
    try:
        import gguf
    except ImportError:
        yield
        return
    with _GGUF_PATCH_LOCK:
        reader_class = getattr(gguf, "GGUFReader", None)
        name_map = getattr(gguf, "get_tensor_name_map", None)
        if reader_class is None or name_map is None:
            yield
            return
        if readers is None:
            readers = {}

        def shared_reader(path: Any, mode: str = "r") -> Any:
            key = (os.fspath(path), mode)
            if key not in readers:
                readers[key] = reader_class(path, mode)
            return readers[key]

        gguf.GGUFReader = shared_reader
        gguf.get_tensor_name_map = functools.lru_cache(maxsize=None)(name_map)
        try:
            yield
        finally:
            gguf.GGUFReader, gguf.get_tensor_name_map = reader_class, name_map


def gguf_location(model: str) -> tuple[str, str]:
    """``gguf:`` argument -> (folder or Hub repo, file name) as ``from_pretrained(..., gguf_file=)`` wants.

    A local file path splits into its folder and name; ``org/repo/file.gguf`` that is not a local file
    is read as a Hub repository and a file in it.
    """
    path = Path(model).expanduser()
    if path.is_file():
        return str(path.parent.resolve()), path.name
    parts = model.split("/")
    if len(parts) >= 3 and model.endswith(".gguf") and not model.startswith((".", "/", "~")):
        return "/".join(parts[:2]), "/".join(parts[2:])
    raise LLMConfigurationError(f"gguf:{model}: no such file (give the path of a .gguf file, or org/repo/file.gguf)")


def _file_fingerprint(path: Path) -> str:
    """A GGUF file's identity (:func:`~surge_dataset.models.base.digest_weights_file`: name, size, first and last MiB)."""
    digest = hashlib.blake2b(digest_size=12)
    digest_weights_file(digest, path, path.name)
    return "file-" + digest.hexdigest()


class TransformersBackend:
    """Greedy chat generation and next-token probabilities with a local ``transformers`` model."""

    def __init__(
        self,
        spec: BackendSpec,
        *,
        device: str | None = None,
        dtype: str | None = None,
        batch_size: int = 8,
        revision: str | None = None,
        threads: int | None = None,
    ) -> None:
        """``threads``: torch CPU threads (None: see :func:`~surge_dataset.models.threads.resolve_threads`;
        0: leave the process's setting alone)."""
        if spec.kind not in ("hf", "gguf"):
            raise ValueError(f"TransformersBackend serves hf: and gguf: specs, not {spec}")
        if batch_size < 1:
            raise ValueError(f"batch_size must be positive, got {batch_size}")
        self.spec = spec
        self.device = device
        self.dtype = dtype
        self.batch_size = batch_size
        self.revision = revision
        self.threads = threads
        #: The thread count applied at load (None before loading, or with ``threads=0``).
        self.thread_choice: ThreadChoice | None = None
        #: Seconds the last load took (tokenizer + weights).
        self.load_seconds: float | None = None
        self._gguf_readers: dict[tuple[str, str], Any] = {}  # parsed once for the config and the load
        self._model: Any = None
        self._tokenizer: Any = None
        self._context_length: int | None = None
        self._lock = threading.Lock()
        if spec.kind == GGUF:
            self._source, self._gguf_file = gguf_location(spec.model)
        else:
            self._source, self._gguf_file = spec.model, None

    def identity(self) -> str:
        if self._gguf_file is not None:
            local = Path(self._source) / self._gguf_file
            weights = _file_fingerprint(local) if local.is_file() else f"hub-{self._source}/{self._gguf_file}"
        else:
            weights = model_fingerprint(self._source, self.revision)
        return f"{self.spec.kind}|{weights}|dtype={str(self._resolved_dtype()).removeprefix('torch.')}"

    def _gpus(self) -> int:
        import torch

        return torch.cuda.device_count() if self.device in (None, "auto") else 0

    def _resolved_dtype(self) -> Any:
        """The compute dtype (part of the cache key: bf16 on GPU and fp32 on CPU may answer differently)."""
        return _torch_dtype(self.dtype, self._gpus() > 0 or str(self.device).startswith("cuda"))

    # -- loading ------------------------------------------------------------------------------------

    def _load(self) -> None:
        with self._lock:
            if self._model is not None:
                return
            start = time.perf_counter()
            if self.threads != 0:
                try:
                    self.thread_choice = configure_threads(self.threads)
                except ValueError as exc:  # a bad $SURGE_NUM_THREADS: every request would fail alike
                    raise LLMConfigurationError(f"{self.spec}: {exc}") from None
            from transformers import AutoModelForCausalLM, AutoTokenizer

            kwargs: dict[str, Any] = {"trust_remote_code": False}
            if self._gguf_file is not None:
                kwargs["gguf_file"] = self._gguf_file
            if self.revision:
                kwargs["revision"] = self.revision
            gpus = self._gpus()
            dtype = self._resolved_dtype()
            # transformers renamed torch_dtype to dtype in 4.56; the package supports both sides of that.
            dtype_name = "dtype" if _transformers_at_least(4, 56) else "torch_dtype"
            model_kwargs = dict(kwargs, **{dtype_name: dtype})
            if gpus > 1:
                model_kwargs["device_map"] = "auto"

            def load() -> tuple[Any, Any]:
                tokenizer = AutoTokenizer.from_pretrained(self._source, **kwargs)
                model = AutoModelForCausalLM.from_pretrained(self._source, **model_kwargs)
                return tokenizer, model

            gguf = _shared_gguf_parsing(self._gguf_readers) if self._gguf_file is not None else contextlib.nullcontext()
            try:
                with gguf:
                    tokenizer, model = load_model(load, self._source, ("the LLM judge",), f"--judge {self.spec.kind}:")
            finally:
                self._gguf_readers.clear()  # ~150 MB for SmolLM2's vocabulary: not needed once loaded
            if gpus <= 1:
                target = self.device if self.device not in (None, "auto") else ("cuda" if gpus == 1 else "cpu")
                model = model.to(target)
            model.eval()
            tokenizer.padding_side = "left"
            if tokenizer.pad_token_id is None:
                tokenizer.pad_token = tokenizer.eos_token
            self._tokenizer, self._model = tokenizer, model
            self.load_seconds = time.perf_counter() - start
            choice = self.thread_choice
            threads = f"{choice.threads} torch thread(s) ({choice.source})" if choice else "torch threads as set"
            device = model.get_input_embeddings().weight.device  # not self.model: the lock is held
            logger.info("%s loaded in %.0f s on %s, %s", self.spec, self.load_seconds, device, threads)

    @property
    def model(self) -> Any:
        self._load()
        return self._model

    @property
    def tokenizer(self) -> Any:
        self._load()
        return self._tokenizer

    def _prompt_text(self, conversation: Conversation) -> str:
        tokenizer = self.tokenizer
        if getattr(tokenizer, "chat_template", None):
            return tokenizer.apply_chat_template(as_messages(conversation), tokenize=False, add_generation_prompt=True)
        # No template: a plain transcript the model can continue.
        turns = [f"{role.capitalize()}: {content}" for role, content in conversation]
        return "\n\n".join(turns) + "\n\nAssistant:"

    def _encode(self, texts: list[str]) -> dict[str, Any]:
        # The chat template already holds the special tokens; adding them again would double BOS.
        batch = self.tokenizer(texts, return_tensors="pt", padding=True, add_special_tokens=False)
        return {k: v.to(self._input_device()) for k, v in batch.items()}

    def _input_device(self) -> Any:
        return self.model.get_input_embeddings().weight.device

    def _batches(self, conversations: Sequence[Conversation]) -> list[list[tuple[int, str]]]:
        texts = [(i, self._prompt_text(c)) for i, c in enumerate(conversations)]
        texts.sort(key=lambda item: -len(item[1]))  # similar lengths together: little padding
        return [texts[s : s + self.batch_size] for s in range(0, len(texts), self.batch_size)]

    def context_length(self) -> int | None:
        """The model's maximum sequence length (prompt + answer), read from its config without loading weights."""
        if self._context_length is None:
            config = self._model.config if self._model is not None else self._load_config()
            for name in ("max_position_embeddings", "n_positions", "max_sequence_length", "seq_length"):
                value = getattr(config, name, None)
                if isinstance(value, int) and value > 0:
                    self._context_length = value
                    break
        return self._context_length

    def _load_config(self) -> Any:
        from transformers import AutoConfig

        kwargs: dict[str, Any] = {"trust_remote_code": False}
        if self._gguf_file is not None:
            kwargs["gguf_file"] = self._gguf_file
        if self.revision:
            kwargs["revision"] = self.revision
        with _shared_gguf_parsing(self._gguf_readers) if self._gguf_file is not None else contextlib.nullcontext():
            return AutoConfig.from_pretrained(self._source, **kwargs)

    # -- generation ---------------------------------------------------------------------------------

    def _generate_batch(
        self, texts: list[str], settings: GenerationSettings, on_tokens: Callable[[int], None] | None = None
    ) -> list[Completion]:
        """Answers with the model's own token counts (prompt without padding; answer tokens before padding)."""
        import torch

        batch = self._encode(texts)
        kwargs: dict[str, Any] = {"max_new_tokens": settings.max_new_tokens, "pad_token_id": self.tokenizer.pad_token_id}
        if on_tokens is not None:
            kwargs["streamer"] = _TokenCounter(on_tokens)
        if settings.temperature > 0:
            kwargs.update(do_sample=True, temperature=settings.temperature)
        else:
            kwargs.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        with torch.inference_mode():
            out = self.model.generate(**batch, **kwargs)
        new = out[:, batch["input_ids"].shape[1] :]
        prompts = batch["attention_mask"].sum(dim=1).tolist()
        answers = (new != self.tokenizer.pad_token_id).sum(dim=1).tolist()
        texts = [t.strip() for t in self.tokenizer.batch_decode(new, skip_special_tokens=True)]
        return [Completion(text=t, prompt_tokens=int(p), completion_tokens=int(a))
                for t, p, a in zip(texts, prompts, answers, strict=True)]

    def generate(
        self,
        conversations: Sequence[Conversation],
        settings: GenerationSettings,
        on_done: Callable[[int, Completion], None],
        stats: LLMStats,
        on_tokens: Callable[[int], None] | None = None,
    ) -> None:
        if not conversations:
            return
        for batch in self._batches(conversations):
            stats.add(sent=len(batch))
            try:
                answers = self._generate_batch([t for _, t in batch], settings, on_tokens)
            except Exception as exc:  # noqa: BLE001 - one bad batch (e.g. out of memory): go one by one
                if len(batch) > 1:
                    logger.warning("local LLM batch failed (%s); retrying its %d prompts one by one", exc, len(batch))
                    self.generate_single(batch, settings, on_done, stats)
                else:
                    self._record_failure(batch[0][0], exc, on_done, stats)
                continue
            for (index, _), answer in zip(batch, answers, strict=True):
                on_done(index, answer)

    def generate_single(
        self,
        batch: list[tuple[int, str]],
        settings: GenerationSettings,
        on_done: Callable[[int, Completion], None],
        stats: LLMStats,
    ) -> None:
        for index, text in batch:
            try:
                on_done(index, self._generate_batch([text], settings)[0])
            except Exception as exc:  # noqa: BLE001 - recorded as a missing answer
                self._record_failure(index, exc, on_done, stats)

    @staticmethod
    def _record_failure(index: int, exc: Exception, on_done: Callable[[int, Completion], None], stats: LLMStats) -> None:
        stats.add(failed=1)
        logger.warning("local LLM generation failed: %s: %s", type(exc).__name__, exc)
        on_done(index, Completion(text=None, error=error_text(exc)[:300]))

    # -- probability-weighted scores ----------------------------------------------------------------

    def choice_token_ids(self, choices: Sequence[str]) -> list[int]:
        """One token id per choice (e.g. the digits 0-5); an error if a choice is not a single token."""
        ids = []
        for choice in choices:
            tokens = self.tokenizer.encode(choice, add_special_tokens=False)
            if len(tokens) != 1:
                raise LLMConfigurationError(
                    f"{self.spec}: the answer {choice!r} is {len(tokens)} tokens for this tokenizer, so its "
                    "probability cannot be read from one next-token distribution; use the plain score"
                )
            ids.append(tokens[0])
        return ids

    def next_token_probabilities(self, conversations: Sequence[Conversation], choices: Sequence[str]) -> np.ndarray:
        import torch

        ids = self.choice_token_ids(choices)
        out = np.zeros((len(conversations), len(choices) + 1), dtype=np.float64)
        for batch in self._batches(conversations):
            encoded = self._encode([t for _, t in batch])
            mask = encoded["attention_mask"]
            # Left padding: positions count real tokens only, so a padded row sees what it would alone.
            positions = (mask.cumsum(-1) - 1).clamp(min=0)
            with torch.inference_mode():
                logits = self.model(**encoded, position_ids=positions).logits[:, -1, :].float()
            probs = torch.softmax(logits, dim=-1)[:, ids].double().cpu().numpy()
            for row, (index, _) in enumerate(batch):
                mass = float(probs[row].sum())
                out[index, :-1] = probs[row] / mass if mass > 0 else np.nan
                out[index, -1] = mass
        return out

    def continuation_logprobs(self, pairs: Sequence[tuple[str, str]]) -> list[list[float]]:
        """Per (prompt, continuation): each continuation token's log-probability (:mod:`.logprobs`; UPR)."""
        from surge_dataset.llm.logprobs import local_continuation_logprobs

        return local_continuation_logprobs(self, pairs, self.batch_size)

    def __repr__(self) -> str:
        return f"TransformersBackend({str(self.spec)!r}, batch_size={self.batch_size})"


class _TokenCounter:
    """A ``generate(streamer=...)`` that only counts decoded tokens (all rows of the batch) for a live speed.

    ``transformers`` calls ``put`` with the prompt first, then once per decoding step with one token
    per row; rows that already ended still count, so the live figure is an upper bound.
    """

    def __init__(self, on_tokens: Callable[[int], None]) -> None:
        self.on_tokens = on_tokens
        self._prompt_seen = False

    def put(self, value: Any) -> None:
        if not self._prompt_seen:
            self._prompt_seen = True
            return
        self.on_tokens(int(value.shape[0]) if getattr(value, "ndim", 0) else 1)

    def end(self) -> None:
        """Nothing to flush: no text is decoded here."""


def _transformers_at_least(major: int, minor: int) -> bool:
    import transformers

    parts = transformers.__version__.split(".")
    try:
        return (int(parts[0]), int(parts[1])) >= (major, minor)
    except (IndexError, ValueError):
        return True


def _torch_dtype(name: str | None, on_gpu: bool) -> Any:
    """bf16 on GPU (what instruction models are trained in), fp32 on CPU, unless the caller says otherwise."""
    import torch

    if name in (None, "auto"):
        return torch.bfloat16 if on_gpu and torch.cuda.is_bf16_supported() else torch.float32
    return resolve_dtype(name, "cpu")  # a named dtype: the one spelling rule of the model layer
