"""Tiny, randomly initialised models built on the spot, so tests and docs never download anything.

The models are real ``transformers`` checkpoints saved to a folder, so they travel through exactly the
code path a user's downloaded model takes (``CrossEncoder(path)``, ``AutoModel.from_pretrained(path)``).
Their outputs are meaningless; only their shapes, label names and determinism matter.
"""

from __future__ import annotations

import os
import string
from collections.abc import Sequence
from pathlib import Path

__all__ = ["build_tiny_nli_cross_encoder", "build_tiny_ner_model", "build_tiny_roberta", "cache_as_hub_model",
           "CANONICAL_NLI_LABELS", "CONLL_NER_LABELS"]

CANONICAL_NLI_LABELS: tuple[str, str, str] = ("contradiction", "entailment", "neutral")

# Whole words the tiny tokenizers know, so the SurGE prompt templates tokenise into a few pieces each
# instead of one piece per letter; anything else still tokenises (letters are in the vocabulary).
_WORDS = """
a an the of and or in on to for with by from as at is are was were be been could can may might this that
these those there it its we our they their which who what how when where why not no yes all any each some
paper papers title titled abstract given cited cite citation section sentence survey surveys relevant
relevance model models method methods learning deep neural network networks language large data dataset
datasets task tasks results show shows propose proposed approach approaches new performance training
graph graphs attention transformer transformers generation retrieval evaluation benchmark benchmarks
scientific text texts based using use used study studies analysis problem problems information system
systems framework frameworks introduction conclusion related work background future challenges
applications application review overview reinforcement vision image images speech knowledge question
answering reasoning optimization algorithm algorithms efficient robust federated privacy security
""".split()


def _require_empty_or_absent(path: Path) -> None:
    """Refuse to build into a folder that already holds other files: we would silently mix checkpoints."""
    if path.exists() and any(path.iterdir()):
        raise FileExistsError(f"{path} exists and is not empty; build tiny models into a fresh folder")


def _write_wordpiece_vocab(path: Path) -> None:
    """A deterministic hand-written WordPiece vocabulary: specials, punctuation, characters, common words."""
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    chars = list(string.ascii_lowercase + string.digits)
    punctuation = list(string.punctuation)
    vocab = specials + punctuation + chars + [f"##{c}" for c in chars] + sorted(set(_WORDS) - set(chars))
    (path / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")


def build_tiny_nli_cross_encoder(
    path: str | os.PathLike[str],
    seed: int = 0,
    label_order: Sequence[str] = CANONICAL_NLI_LABELS,
    *,
    max_length: int = 512,
    hidden_size: int = 32,
    num_layers: int = 2,
) -> Path:
    """Save a tiny 3-label BERT sequence classifier plus tokenizer to ``path`` and return the path.

    ``id2label`` follows ``label_order``. The classifier rows are drawn in the canonical order and then
    permuted, so for one ``seed`` the row belonging to, say, ``"entailment"`` is the same whatever
    ``label_order`` is: two models that differ only in label order agree once their logits are put back
    into the canonical order -- exactly what a label-order test needs.
    """
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    labels = [str(label) for label in label_order]
    if sorted(label.lower() for label in labels) != sorted(CANONICAL_NLI_LABELS):
        raise ValueError(f"label_order must be a permutation of {CANONICAL_NLI_LABELS}, got {labels}")
    path = Path(path)
    _require_empty_or_absent(path)
    path.mkdir(parents=True, exist_ok=True)

    _write_wordpiece_vocab(path)
    # from_pretrained over the written vocab file works the same on transformers 4.x and 5.x.
    tokenizer = BertTokenizerFast.from_pretrained(str(path), do_lower_case=True, model_max_length=max_length)

    config = BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden_size,
        num_hidden_layers=num_layers,
        num_attention_heads=2,
        intermediate_size=2 * hidden_size,
        max_position_embeddings=max_length,
        # A wide init makes logits differ visibly between inputs, so ordering bugs cannot hide.
        initializer_range=0.2,
        num_labels=3,
        id2label=dict(enumerate(labels)),
        label2id={label: i for i, label in enumerate(labels)},
    )
    torch.manual_seed(seed)
    model = BertForSequenceClassification(config).eval()
    with torch.no_grad():
        canonical = [CANONICAL_NLI_LABELS.index(label.lower()) for label in labels]
        model.classifier.weight.copy_(model.classifier.weight[canonical].clone())
        model.classifier.bias.copy_(torch.linspace(-0.5, 0.5, 3)[canonical])

    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


# A fixed little corpus for the byte-level BPE merges; changing it changes the tokenizer.
_BPE_CORPUS = [
    "There is a paper. Title: 'Attention is all you need'. Abstract: We propose a new network architecture.",
    "A survey of retrieval augmented generation for large language models and their evaluation.",
    "Dense passage retrieval trains a dual encoder on questions and passages with in-batch negatives.",
    "Graph neural networks learn node representations by passing messages along the edges of a graph.",
    "Federated learning trains models across many devices while keeping the data on the devices.",
    "Scientific survey generation writes a structured overview of a research field with citations.",
    " ".join(_WORDS),
]


def build_tiny_roberta(
    path: str | os.PathLike[str],
    seed: int = 0,
    *,
    max_length: int = 512,
    hidden_size: int = 32,
    num_layers: int = 2,
    vocab_size: int = 600,
) -> Path:
    """Save a tiny randomly initialised ``RobertaModel`` and a byte-level BPE tokenizer to ``path``.

    Stands in for ``roberta-base`` in the dual-encoder retriever tests: same architecture family, same
    special tokens (``<s>``, ``</s>``, ``<pad>``...), loadable with ``AutoModel``/``AutoTokenizer``.
    """
    import torch
    from tokenizers import ByteLevelBPETokenizer
    from transformers import RobertaConfig, RobertaModel, RobertaTokenizerFast

    path = Path(path)
    _require_empty_or_absent(path)
    path.mkdir(parents=True, exist_ok=True)

    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(
        _BPE_CORPUS, vocab_size=vocab_size, min_frequency=1, special_tokens=specials, show_progress=False
    )
    bpe.save_model(str(path))
    tokenizer = RobertaTokenizerFast.from_pretrained(str(path), model_max_length=max_length)

    config = RobertaConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden_size,
        num_hidden_layers=num_layers,
        num_attention_heads=2,
        intermediate_size=2 * hidden_size,
        # RoBERTa offsets positions by padding_idx + 1, hence the two extra slots.
        max_position_embeddings=max_length + 2,
        type_vocab_size=1,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(seed)
    model = RobertaModel(config).eval()
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


#: CoNLL-03 BIO labels, the label set of STORM's NER model and of ``dslim/bert-base-NER``.
CONLL_NER_LABELS: tuple[str, ...] = ("O", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC", "I-LOC", "B-MISC", "I-MISC")


def build_tiny_ner_model(path: str | os.PathLike[str], seed: int = 0, *, hidden_size: int = 32) -> Path:
    """Save a tiny random BERT token classifier with CoNLL-03 labels plus tokenizer (for NER code paths).

    The ``O`` bias is lowered so that some tokens come out as entities: tests need non-empty output
    from the aggregation step, not meaningful entities.
    """
    import torch
    from transformers import BertConfig, BertForTokenClassification, BertTokenizerFast

    path = Path(path)
    _require_empty_or_absent(path)
    path.mkdir(parents=True, exist_ok=True)
    _write_wordpiece_vocab(path)
    tokenizer = BertTokenizerFast.from_pretrained(str(path), do_lower_case=False, model_max_length=128)
    labels = list(CONLL_NER_LABELS)
    config = BertConfig(
        vocab_size=len(tokenizer), hidden_size=hidden_size, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=2 * hidden_size, max_position_embeddings=128, initializer_range=0.2,
        num_labels=len(labels), id2label=dict(enumerate(labels)), label2id={k: i for i, k in enumerate(labels)},
    )
    torch.manual_seed(seed)
    model = BertForTokenClassification(config).eval()
    with torch.no_grad():
        model.classifier.bias.zero_()
        model.classifier.bias[0] = -2.0
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


def cache_as_hub_model(folder: str | os.PathLike[str], repo_id: str, hub_cache: str | os.PathLike[str],
                       commit: str = "0" * 40) -> Path:
    """Copy a local model ``folder`` into the Hugging Face cache ``hub_cache`` (``$HF_HOME/hub``) as the Hub
    repository ``repo_id`` at ``commit``, laid out as ``huggingface_hub`` downloads it (``refs/main`` names the
    snapshot). Offline tests and demos can then name a model by its Hub id, as a user does after
    ``surge models download``; returns the snapshot folder. The weights stay those of ``folder``."""
    import shutil

    repo = Path(hub_cache) / f"models--{repo_id.replace('/', '--')}"
    snapshot = repo / "snapshots" / commit
    shutil.copytree(folder, snapshot, dirs_exist_ok=True)
    (repo / "refs").mkdir(parents=True, exist_ok=True)
    (repo / "refs" / "main").write_text(commit, encoding="utf-8")
    return snapshot
