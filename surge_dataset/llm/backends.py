"""The built-in LLM backends of ``--llm`` / ``--judge`` specs, one factory each in :data:`~.base.LLM_BACKENDS`.

A factory takes the parsed :class:`~.base.BackendSpec` and the options :func:`~.client.make_llm` passes
(``base_url``, ``concurrency``, ``timeout``, ``max_retries``, ``backoff_base``, ``device``, ``dtype``,
``batch_size``, ``threads``), uses the ones it knows and returns a :class:`~.base.ChatBackend`. Their modules
(the HTTP client, torch) are imported only when one is built. Another package adds a backend with one entry
point, nothing else::

    [project.entry-points."surge.llm_backends"]
    vertex = "my_package.vertex:make_backend"
"""

from __future__ import annotations

from typing import Any

from surge_dataset.core.vocabulary import GGUF, HF, OPENAI
from surge_dataset.llm.base import BackendSpec, ChatBackend, LLMConfigurationError, llm_backend

__all__ = ["gguf_backend", "hf_backend", "openai_backend"]


@llm_backend(OPENAI)
def openai_backend(spec: BackendSpec, *, base_url: str | None = None, concurrency: int = 8, timeout: float = 120.0,
                   max_retries: int = 5, backoff_base: float = 1.0, **_: Any) -> ChatBackend:
    """An OpenAI-compatible server (api.openai.com, vLLM, llama.cpp's server: ``base_url``)."""
    from surge_dataset.llm.openai_backend import OpenAIBackend

    return OpenAIBackend(spec.model, base_url=base_url, concurrency=concurrency, timeout=timeout,
                         max_retries=max_retries, backoff_base=backoff_base)


def _local(spec: BackendSpec, *, base_url: str | None = None, device: str | None = None, dtype: str | None = None,
           batch_size: int = 8, threads: int | None = None, **_: Any) -> ChatBackend:
    if base_url:
        raise LLMConfigurationError(f"--base-url is for openai: judges, not {spec}")
    from surge_dataset.llm.local import TransformersBackend

    return TransformersBackend(spec, device=device, dtype=dtype, batch_size=batch_size, threads=threads)


@llm_backend(HF)
def hf_backend(spec: BackendSpec, **options: Any) -> ChatBackend:
    """A ``transformers`` model (Hub id or local folder)."""
    return _local(spec, **options)


@llm_backend(GGUF)
def gguf_backend(spec: BackendSpec, **options: Any) -> ChatBackend:
    """A GGUF file, de-quantised by ``transformers`` on load."""
    return _local(spec, **options)


openai_backend.usage = "openai:<model>"  # type: ignore[attr-defined]
hf_backend.usage = "hf:<model id or folder>"  # type: ignore[attr-defined]
gguf_backend.usage = "gguf:<file>"  # type: ignore[attr-defined]
