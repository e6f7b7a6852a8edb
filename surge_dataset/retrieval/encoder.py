"""The paper's query/paper encoder (protocol §6): one shared Hugging Face encoder, the last layer's
first-token (``[CLS]``/``<s>``) vector. A model folder may carry ``surge_retriever.json`` (written by
``training/train_retriever.py``) with its maximum query/document lengths."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

RETRIEVER_CONFIG = "surge_retriever.json"
DEFAULT_MAX_QUERY_LENGTH = 64
DEFAULT_MAX_DOC_LENGTH = 256


def transformer_dir(model_path: str | Path) -> Path:
    """The folder holding the Hugging Face checkpoint: the path itself, or a sentence-transformers
    model's ``Transformer`` module folder (read from ``modules.json``)."""
    path = Path(model_path)
    modules = path / "modules.json"
    if modules.is_file():
        for module in json.loads(modules.read_text(encoding="utf-8")):
            if str(module.get("type", "")).endswith("Transformer"):
                return path / module.get("path", "")
    return path


def retriever_config(model_path: str | Path) -> dict[str, Any]:
    """``surge_retriever.json`` of a model folder, or {} (a plain Hugging Face checkpoint)."""
    for folder in (Path(model_path), transformer_dir(model_path)):
        file = folder / RETRIEVER_CONFIG
        if file.is_file():
            return json.loads(file.read_text(encoding="utf-8"))
    return {}


def model_fingerprint(model_path: str | Path) -> str:
    """Cheap identity of a checkpoint (config + weight file names, sizes, first and last MiB)."""
    folder = transformer_dir(model_path)
    digest = hashlib.sha256()
    for file in sorted(folder.iterdir()) if folder.is_dir() else []:
        if file.name == "config.json":
            digest.update(file.read_bytes())
        elif file.suffix in (".safetensors", ".bin", ".pt"):
            size = file.stat().st_size
            digest.update(f"{file.name}:{size}".encode())
            with open(file, "rb") as handle:
                digest.update(handle.read(1 << 20))
                handle.seek(max(0, size - (1 << 20)))
                digest.update(handle.read(1 << 20))
    return digest.hexdigest()[:16]



def load_backbone(name_or_path: str | Path) -> Any:
    """``AutoModel`` without its pooler where the architecture allows (the pooler is never used; not
    loading it keeps DDP -- every parameter must get a gradient -- and memory clean)."""
    from transformers import AutoModel

    try:
        return AutoModel.from_pretrained(str(name_or_path), add_pooling_layer=False)
    except TypeError:
        return AutoModel.from_pretrained(str(name_or_path))


def _quiet_transformers() -> None:
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()


class DenseEncoder:
    """Shared-weight dual encoder: ``[CLS] text [SEP]`` -> last hidden state of the first token."""

    def __init__(
        self,
        model_path: str | Path,
        *,
        device: str | Any | None = None,
        fp16: bool | None = None,
        max_query_length: int | None = None,
        max_doc_length: int | None = None,
    ):
        import torch
        from transformers import AutoTokenizer

        _quiet_transformers()
        folder = transformer_dir(model_path)
        config = retriever_config(model_path)
        self.model_path = str(model_path)
        self.max_query_length = int(max_query_length or config.get("max_query_length", DEFAULT_MAX_QUERY_LENGTH))
        self.max_doc_length = int(max_doc_length or config.get("max_doc_length", DEFAULT_MAX_DOC_LENGTH))
        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        self.fp16 = (self.device.type == "cuda") if fp16 is None else bool(fp16)
        self.tokenizer = AutoTokenizer.from_pretrained(str(folder))
        model = load_backbone(folder)
        model.eval().to(self.device)
        if self.fp16:
            model.half()
        self.model = model
        self.dim = int(model.config.hidden_size)
        model_max = getattr(self.tokenizer, "model_max_length", None) or 512
        if model_max < 100_000:
            self.max_query_length = min(self.max_query_length, model_max)
            self.max_doc_length = min(self.max_doc_length, model_max)

    def encode(
        self, texts: Sequence[str], *, max_length: int, batch_size: int = 64,
        on_batch: Callable[[int], None] | None = None,
    ) -> np.ndarray:
        """float32 embeddings, rows in input order; batches are formed longest-first.

        ``on_batch(rows)`` is called after each forward pass (progress bars).
        """
        import torch

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        encoded = self.tokenizer(list(texts), truncation=True, max_length=max_length, add_special_tokens=True)
        ids = encoded["input_ids"]
        order = np.argsort([-len(x) for x in ids], kind="stable")
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0
        with torch.inference_mode():
            for start in range(0, len(order), batch_size):
                rows = order[start : start + batch_size]
                width = max(len(ids[r]) for r in rows)
                input_ids = torch.full((len(rows), width), pad, dtype=torch.long)
                mask = torch.zeros((len(rows), width), dtype=torch.long)
                for j, r in enumerate(rows):
                    input_ids[j, : len(ids[r])] = torch.tensor(ids[r], dtype=torch.long)
                    mask[j, : len(ids[r])] = 1
                hidden = self.model(
                    input_ids=input_ids.to(self.device), attention_mask=mask.to(self.device)
                ).last_hidden_state
                out[rows] = hidden[:, 0].float().cpu().numpy()
                if on_batch is not None:
                    on_batch(len(rows))
        return out

    def encode_queries(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        return self.encode(texts, max_length=self.max_query_length, batch_size=batch_size)

    def encode_documents(
        self, texts: Sequence[str], batch_size: int = 64, on_batch: Callable[[int], None] | None = None
    ) -> np.ndarray:
        return self.encode(texts, max_length=self.max_doc_length, batch_size=batch_size, on_batch=on_batch)
