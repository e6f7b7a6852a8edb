"""Write the synthetic SurGE sample shipped in ``examples/sample/`` (surveys, corpus, queries, README).

The real SurGE files are too large to ship and are not ours to redistribute, so every test and example
runs on this small sample instead. It follows the official JSON schema exactly (protocol.md §1) and is
built to make expected metric values computable by hand:

* each survey's ``all_cites`` is exactly the union of the papers cited by its sections;
* every section with content of at least 100 characters in a survey with citations cites at least one
  paper and yields exactly one query; short (< 100 characters) and empty sections cite nothing;
* the corpus holds the cited papers, uncited papers on the same topics and off-topic papers;
* deliberate edge cases (titles that normalise alike, punctuation the released evaluator's title pattern
  breaks on, temporal leakage, a non-ASCII title, papers cited by two surveys, a survey without
  citations) are listed in ``EDGE_CASES``, printed at the end and written to the README.

Stdlib only and deterministic: one ``random.Random(SEED)`` drives every random choice, nothing iterates
over a set, and the output is byte-identical from run to run.

Usage: ``python examples/make_sample.py [--out DIR]`` (default: ``examples/sample`` beside this file).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import re
import sys
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SEED = 20250821
DEFAULT_OUT = Path(__file__).resolve().parent / "sample"
LONG_CONTENT = 100  # protocol.md §4: "sections of GT with content" have at least this many characters
LEVEL_NAMES = {1: "section", 2: "subsection", 3: "subsubsection"}
# The released evaluator's title pattern keeps only a final run of these characters (protocol.md §4).
_TITLE_TAIL = re.compile(r"[\w\s:,.\-]+$")
_NOT_ASCII_LOWER = re.compile(r"[^a-z]+")

EDGE_CASES: dict[str, Any] = {}  # filled by main(); build_sample() returns the same dict


def normalise_title(title: str) -> str:
    """Keep only the letters a-z of the lower-cased title (the released evaluator's matching rule)."""
    return _NOT_ASCII_LOWER.sub("", title.lower())


def iso(day: dt.date) -> str:
    """The timestamp format of the real files (``2021-03-04T00:00:00``)."""
    return f"{day.isoformat()}T00:00:00"


# ---------------------------------------------------------------------------------------------------
# Topics: vocabulary for abstracts of every paper and for the titles of generated (uncited) papers.
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Topic:
    """One research area: its arXiv category, abstract vocabulary and title parts for generated papers."""

    name: str
    category: str
    contexts: tuple[str, ...]
    metrics: tuple[str, ...]
    methods: tuple[str, ...]
    tasks: tuple[str, ...]
    n_generated: int


TOPICS: dict[str, Topic] = {
    t.name: t
    for t in (
        Topic(
            "gnn",
            "cs.LG",
            (
                "Graph-structured data arise in chemistry, social science and recommendation, and learning"
                " from them requires models that respect the symmetries of graphs.",
                "Graph neural networks have become the standard tool for learning representations of nodes,"
                " edges and whole graphs.",
            ),
            ("classification accuracy", "mean reciprocal rank", "ROC-AUC"),
            (
                "Graph Autoencoders",
                "Hypergraph Neural Networks",
                "Equivariant Message Passing",
                "Signed Graph Convolutions",
                "Temporal Graph Networks",
                "Heterogeneous Graph Attention",
                "Graph Contrastive Learning",
                "Spectral Graph Wavelets",
            ),
            (
                "Link Prediction in Citation Networks",
                "Community Detection",
                "Protein Interface Prediction",
                "Fraud Detection in Transaction Graphs",
                "Point Cloud Segmentation",
                "Program Analysis",
                "Social Recommendation",
                "Combinatorial Optimisation",
                "Particle Physics Simulation",
            ),
            20,
        ),
        Topic(
            "rag",
            "cs.CL",
            (
                "Large language models store factual knowledge in their parameters, but this knowledge is"
                " difficult to update and prone to hallucination.",
                "Open-domain question answering and other knowledge-intensive tasks require models to find"
                " and use evidence from large text collections.",
            ),
            ("exact match", "top-20 retrieval accuracy", "answer F1"),
            (
                "Sparse Query Expansion",
                "Multi-Vector Dense Retrieval",
                "Generative Retrieval",
                "Passage Reranking",
                "Memory-Augmented Decoders",
                "Contrastive Retriever Pretraining",
                "Evidence Aggregation",
                "Query-Focused Summarisation",
            ),
            (
                "Biomedical Question Answering",
                "Fact Verification",
                "Conversational Search",
                "Multilingual Open-Domain QA",
                "Code Generation",
                "Legal Document Retrieval",
                "Multi-Hop Reasoning",
                "Entity Linking",
                "Scientific Claim Checking",
            ),
            20,
        ),
        Topic(
            "fl",
            "cs.LG",
            (
                "Federated learning trains a shared model across many clients without centralising their raw"
                " data.",
                "Training machine learning models on data held by phones, hospitals or companies raises"
                " communication, privacy and heterogeneity challenges.",
            ),
            ("test accuracy", "communication cost", "convergence speed"),
            (
                "Federated Distillation",
                "Split Learning",
                "Hierarchical Federated Averaging",
                "Federated Dropout",
                "Clustered Federated Learning",
                "Vertical Federated Learning",
                "Federated Continual Learning",
                "Local Differential Privacy",
            ),
            (
                "Medical Imaging Consortia",
                "Next-Word Prediction on Keyboards",
                "Cross-Silo Credit Scoring",
                "Wearable Health Monitoring",
                "Industrial Anomaly Detection",
                "Speech Recognition on Devices",
                "Smart Grid Forecasting",
                "Autonomous Vehicle Fleets",
                "Drug Discovery Partnerships",
            ),
            20,
        ),
        Topic(
            "sr",
            "cs.CV",
            (
                "Single-image super-resolution aims to recover a high-resolution image from a degraded"
                " low-resolution observation.",
                "Image restoration is an ill-posed inverse problem in which many high-resolution images are"
                " consistent with one low-resolution input.",
            ),
            ("PSNR", "SSIM", "LPIPS"),
            (
                "Wavelet-Domain Networks",
                "Implicit Neural Representations",
                "Deformable Convolutions",
                "Frequency-Aware Losses",
                "Dictionary Learning",
                "Non-Local Attention",
                "Degradation-Aware Transformers",
                "Knowledge Distillation",
            ),
            (
                "Remote Sensing Imagery",
                "Medical Image Upscaling",
                "Stereo Image Super-Resolution",
                "Light Field Reconstruction",
                "Depth Map Upsampling",
                "Text Image Super-Resolution",
                "Thermal Image Enhancement",
                "Arbitrary-Scale Upsampling",
                "Compressed Image Restoration",
            ),
            20,
        ),
        Topic(
            "al",
            "cs.CL",
            (
                "Annotating text for supervised classification is slow and expensive, especially in"
                " specialised domains.",
                "Active learning reduces labelling cost by letting the model select which unlabelled examples"
                " should be annotated.",
            ),
            ("macro-F1", "accuracy at a fixed labelling budget", "area under the learning curve"),
            (
                "Expected Gradient Length",
                "Density-Weighted Sampling",
                "Adversarial Active Learning",
                "Cluster-Margin Sampling",
                "Learning Loss Prediction",
                "Discriminative Active Learning",
                "Batch-Mode Acquisition",
                "Reinforced Query Policies",
            ),
            (
                "Named Entity Recognition",
                "Clinical Note Classification",
                "Hate Speech Detection",
                "Legal Document Triage",
                "Multi-Label Topic Tagging",
                "Systematic Review Screening",
                "Aspect-Based Sentiment Analysis",
                "Low-Resource Languages",
                "Argument Mining",
            ),
            20,
        ),
        Topic(
            "dialogue",
            "cs.CL",
            (
                "Evaluating open-domain dialogue systems is difficult because many different responses can be"
                " appropriate for a single context.",
                "Progress in conversational agents depends on evaluation procedures that are reliable, cheap"
                " and reproducible.",
            ),
            ("correlation with human judgements", "inter-annotator agreement", "Spearman correlation"),
            (
                "Adversarial Evaluation",
                "Reference-Free Metrics",
                "Dialogue Act Annotation",
                "Interactive Human Evaluation",
                "Persona Consistency Scoring",
                "Response Ranking Models",
            ),
            (
                "Chit-Chat Systems",
                "Customer Service Agents",
                "Knowledge-Grounded Conversation",
                "Empathetic Dialogue",
                "Multi-Domain Task Completion",
                "Spoken Dialogue Systems",
            ),
            20,
        ),
        # Off-topic fields: only generated papers, none cited.
        Topic(
            "robotics",
            "cs.RO",
            (
                "Robots operating outside the laboratory must cope with uncertain dynamics, contact and"
                " incomplete perception.",
                "Reliable control and perception remain the main obstacles to deploying autonomous robots.",
            ),
            ("success rate", "tracking error", "energy efficiency"),
            (
                "Model Predictive Control",
                "Visual Servoing",
                "Imitation Learning",
                "Trajectory Optimisation",
                "Tactile Sensing",
            ),
            (
                "Legged Locomotion",
                "Robotic Grasping",
                "Aerial Manipulation",
                "Warehouse Navigation",
                "Surgical Robots",
            ),
            10,
        ),
        Topic(
            "compilers",
            "cs.PL",
            (
                "Compilers must map high-level programs onto increasingly diverse hardware while preserving"
                " their semantics.",
                "Program optimisation and analysis remain central to the performance and safety of software.",
            ),
            ("execution time", "code size", "analysis precision"),
            (
                "Polyhedral Scheduling",
                "Profile-Guided Optimisation",
                "Static Type Inference",
                "Just-in-Time Compilation",
                "Abstract Interpretation",
            ),
            (
                "Sparse Tensor Programs",
                "Dynamic Languages",
                "Embedded Firmware",
                "GPU Kernels",
                "WebAssembly Modules",
            ),
            10,
        ),
        Topic(
            "quantum",
            "quant-ph",
            (
                "Near-term quantum processors are limited by noise, connectivity and the number of available"
                " qubits.",
                "Quantum algorithms promise speed-ups for simulation and optimisation, but their practical"
                " advantage is still debated.",
            ),
            ("circuit fidelity", "approximation ratio", "logical error rate"),
            (
                "Variational Quantum Eigensolvers",
                "Surface Code Decoding",
                "Quantum Approximate Optimisation",
                "Tensor Network Simulation",
                "Randomised Benchmarking",
            ),
            (
                "Noisy Intermediate-Scale Devices",
                "Molecular Ground States",
                "Trapped-Ion Processors",
                "Superconducting Qubits",
                "MaxCut Instances",
            ),
            10,
        ),
        Topic(
            "genomics",
            "q-bio.GN",
            (
                "High-throughput sequencing produces data faster than traditional analysis pipelines can"
                " process them.",
                "Computational methods are essential for turning raw sequencing reads into biological"
                " insight.",
            ),
            ("assembly contiguity", "variant-calling precision", "adjusted Rand index"),
            (
                "Hidden Markov Models",
                "Long-Read Assembly",
                "Variant Calling",
                "Single-Cell Clustering",
                "Phylogenetic Inference",
            ),
            (
                "Metagenomic Samples",
                "Cancer Genomes",
                "Plant Genomes",
                "Viral Evolution",
                "Gene Regulatory Networks",
            ),
            10,
        ),
        Topic(
            "networking",
            "cs.NI",
            (
                "Modern networks must deliver low latency and high throughput under rapidly changing"
                " traffic.",
                "The growth of connected devices puts new pressure on the design of network protocols.",
            ),
            ("throughput", "tail latency", "packet loss"),
            (
                "Congestion Control",
                "Software-Defined Routing",
                "Network Slicing",
                "Edge Caching",
                "Packet Scheduling",
            ),
            (
                "Data Centre Networks",
                "5G Radio Access Networks",
                "Satellite Constellations",
                "Vehicular Networks",
                "Low-Power IoT Meshes",
            ),
            10,
        ),
        Topic(
            "databases",
            "cs.DB",
            (
                "Data systems must answer increasingly complex queries over ever larger datasets.",
                "Query processing performance depends on accurate cost models and efficient data structures.",
            ),
            ("query latency", "estimation error", "storage overhead"),
            (
                "Learned Index Structures",
                "Cardinality Estimation",
                "Query Optimisation",
                "Transaction Scheduling",
                "Approximate Query Processing",
            ),
            (
                "Column Stores",
                "Distributed Key-Value Stores",
                "Time-Series Databases",
                "Graph Databases",
                "Cloud Data Warehouses",
            ),
            10,
        ),
        Topic(
            "security",
            "cs.CR",
            (
                "Attackers increasingly exploit subtle implementation flaws rather than weaknesses in"
                " cryptographic primitives.",
                "Securing deployed software requires both rigorous analysis and practical defences.",
            ),
            ("detection rate", "code coverage", "false positive rate"),
            (
                "Lattice-Based Signatures",
                "Coverage-Guided Fuzzing",
                "Side-Channel Analysis",
                "Zero-Knowledge Proofs",
                "Malware Classification",
            ),
            (
                "Embedded Processors",
                "Smart Contracts",
                "Android Applications",
                "Web Browsers",
                "Hardware Wallets",
            ),
            10,
        ),
        Topic(
            "hci",
            "cs.HC",
            (
                "Interactive systems succeed only when they fit the abilities and goals of their users.",
                "Designing technology for diverse user groups requires careful empirical study.",
            ),
            ("task completion time", "user satisfaction", "error rate"),
            (
                "Eye Tracking",
                "Haptic Feedback",
                "Voice Interfaces",
                "Participatory Design",
                "Mixed-Reality Interfaces",
            ),
            (
                "Older Adults",
                "Remote Collaboration",
                "Visualisation Literacy",
                "Accessible Gaming",
                "Museum Visitors",
            ),
            10,
        ),
        Topic(
            "speech",
            "eess.AS",
            (
                "Speech technology still degrades sharply in noisy conditions and for under-represented"
                " speakers.",
                "Audio processing systems must be accurate, robust and efficient enough for real-time use.",
            ),
            ("word error rate", "mean opinion score", "diarisation error rate"),
            (
                "Connectionist Temporal Classification",
                "Neural Vocoders",
                "Speaker Diarisation",
                "Keyword Spotting",
                "Speech Enhancement",
            ),
            (
                "Low-Resource Languages",
                "Meeting Transcription",
                "Hearing Aids",
                "Child Speech",
                "Noisy Call Centres",
            ),
            10,
        ),
        Topic(
            "rl",
            "cs.AI",
            (
                "Reinforcement learning agents learn behaviour from interaction, but they often need"
                " prohibitive amounts of experience.",
                "Sequential decision making under uncertainty underlies many planning and control problems.",
            ),
            ("average return", "sample efficiency", "regret"),
            (
                "Offline Reinforcement Learning",
                "Multi-Agent Policy Gradients",
                "Model-Based Planning",
                "Reward Shaping",
                "Hierarchical Options",
            ),
            (
                "Traffic Signal Control",
                "Inventory Management",
                "Board Games",
                "Autonomous Racing",
                "Power Grid Operation",
            ),
            10,
        ),
        Topic(
            "geometry",
            "cs.CG",
            (
                "Geometric algorithms underpin graphics, geographic information systems and motion planning.",
                "Efficient geometric computation is essential for processing large spatial datasets.",
            ),
            ("running time", "approximation quality", "memory usage"),
            (
                "Delaunay Triangulation",
                "Mesh Simplification",
                "Range Searching",
                "Kinetic Data Structures",
                "Persistent Homology",
            ),
            (
                "Terrain Models",
                "Point Cloud Data",
                "Moving Objects",
                "High-Dimensional Spaces",
                "Architectural Models",
            ),
            10,
        ),
        Topic(
            "software",
            "cs.SE",
            (
                "Software systems evolve quickly, and keeping them correct is a continuous effort.",
                "Developers rely on automated tools to find and fix defects before they reach users.",
            ),
            ("fault detection rate", "developer effort", "patch correctness"),
            (
                "Mutation Testing",
                "Code Review Automation",
                "Defect Prediction",
                "Automated Program Repair",
                "Continuous Integration",
            ),
            (
                "Microservice Architectures",
                "Scientific Software",
                "Open-Source Ecosystems",
                "Mobile Applications",
                "Safety-Critical Systems",
            ),
            10,
        ),
    )
}

# (title pattern, gist pattern) for generated papers; {M}/{T} are title-cased, {m}/{t} lower-cased.
TITLE_PATTERNS: tuple[tuple[str, str], ...] = (
    ("{M} for {T}", "{m} for {t}"),
    ("Scalable {M} for {T}", "a scalable formulation of {m} for {t}"),
    ("On the Robustness of {M} in {T}", "an analysis of the robustness of {m} in {t}"),
    ("Revisiting {M} for {T}", "a careful re-evaluation of {m} for {t}"),
    ("Towards Efficient {M} for {T}", "an efficient approach to {m} for {t}"),
)

CONTRIBUTION = (
    "In this paper we present {g}.",
    "This work presents {g}.",
    "We present {g}.",
    "Here we describe {g}.",
)
DETAILS = (
    "The approach is simple to implement and integrates with existing pipelines at little extra cost.",
    "We analyse its behaviour theoretically and characterise the conditions under which it helps.",
    "A series of ablations isolates the contribution of each component of the design.",
    "Unlike prior work, the formulation does not rely on hand-crafted features or task-specific heuristics.",
)
RESULTS_METHOD = (
    "Experiments on {n} public benchmarks show consistent gains over strong baselines, improving {metric}"
    " by up to {x}%.",
    "An extensive evaluation on {n} datasets shows that the approach matches or exceeds the state of the"
    " art in {metric} while being considerably cheaper.",
    "Across {n} experimental settings, the proposed approach improves {metric} by {x}% on average over the"
    " best competing method.",
)
RESULTS_STUDY = (
    "The analysis covers {n} datasets and reports {metric} under a single, shared protocol.",
    "The findings are consistent across {n} datasets and call into question comparisons based on {metric}"
    " alone.",
)
CLOSINGS = (
    "Code and data are publicly available.",
    "We release our implementation to support future research.",
    "We conclude by discussing limitations and directions for future work.",
)
NUMBER_WORDS = ("two", "three", "four", "five", "six")

FIRST_NAMES = (
    "Alice", "Bilal", "Chen", "Daniela", "Emeka", "Fatima", "Gustav", "Hana", "Ivan", "Jun", "Karin", "Luis",
    "Mei", "Nikhil", "Olga", "Pablo", "Qiang", "Rosa", "Samir", "Tomas", "Uma", "Victor", "Wei", "Yara",
    "Zoe", "Anders", "Beatriz", "Dmitri", "Elif", "Farid", "Grace", "Hiroshi", "Ines", "Jonas", "Kwame",
    "Lena", "Mateo", "Nadia", "Oscar", "Priya", "Rahul", "Sofia", "Tariq", "Valentina", "Xin", "Yusuf",
)  # fmt: skip
LAST_NAMES = (
    "Andersen", "Bauer", "Costa", "Dubois", "Eriksson", "Fischer", "Garcia", "Huang", "Ito", "Jensen",
    "Kowalski", "Li", "Moreau", "Nakamura", "Okafor", "Petrov", "Quinn", "Rossi", "Schmidt", "Tanaka",
    "Usman", "Varga", "Wang", "Xu", "Yilmaz", "Zhang", "Almeida", "Becker", "Chowdhury", "Deng", "Esposito",
    "Fernandez", "Gupta", "Hoffmann", "Iyer", "Kim", "Larsen", "Mehta", "Novak", "Oliveira", "Park",
    "Ramos", "Sato", "Torres", "Vogel", "Weber", "Yamamoto", "Zhou", "Khan", "Singh", "Murphy", "Nguyen",
)  # fmt: skip

# ---------------------------------------------------------------------------------------------------
# Hand-written papers: key -> (topic, title, gist, kind). Cited ones are those a survey section names.
# ---------------------------------------------------------------------------------------------------

HAND_PAPERS: tuple[tuple[str, str, str, str, str], ...] = (
    # Graph neural networks (survey 0)
    ("g_review", "gnn", "Graph Neural Networks: A Review",
     "a review of graph neural network methods organised by architecture, covering recurrent, convolutional"
     " and message-passing models together with their applications", "study"),
    ("g_gcn", "gnn", "Semi-Supervised Node Classification with Spectral Graph Convolutions",
     "a first-order approximation of spectral graph convolutions that enables semi-supervised node"
     " classification when only a few nodes are labelled", "method"),
    ("g_cheb", "gnn", "Fast Localized Spectral Filtering on Graphs with Chebyshev Polynomials",
     "localised spectral filters parameterised by Chebyshev polynomials of the graph Laplacian, which avoid"
     " an explicit eigendecomposition", "method"),
    ("g_mpnn", "gnn", "A Unified Neural Message Passing Framework for Molecular Graphs",
     "a unified neural message passing framework in which nodes exchange messages along edges and update"
     " their states, applied to molecular graphs", "method"),
    ("g_sage", "gnn", "Inductive Representation Learning on Large Graphs via Neighbour Sampling",
     "an inductive representation learning method that samples and aggregates a fixed number of neighbours,"
     " so that embeddings can be computed for unseen nodes", "method"),
    ("g_scal", "gnn", "Cluster-Based Mini-Batch Training for Large Graph Convolutional Networks",
     "cluster-based mini-batch training that restricts each batch to dense graph clusters and reduces the"
     " memory cost of deep graph convolutional networks", "method"),
    ("g_gat", "gnn", "Attention-Based Neighbourhood Aggregation for Graph Representation Learning",
     "attention-based neighbourhood aggregation, in which each node learns a weight for every neighbour"
     " before combining their features", "method"),
    ("g_leak1", "gnn", "Graph Transformers with Structural Positional Encodings",
     "a graph transformer in which every node attends to every other node and structural positional"
     " encodings inject the graph topology", "method"),
    ("g_gin", "gnn", "How Powerful are Graph Neural Networks?",
     "a theoretical framework for the expressive power of graph neural networks, relating message passing"
     " to the Weisfeiler-Lehman graph isomorphism test", "method"),
    ("g_wl", "gnn", "Weisfeiler-Lehman Meets Graph Neural Networks: Higher-Order Expressivity",
     "higher-order graph neural networks that operate on tuples of nodes and follow the k-dimensional"
     " Weisfeiler-Lehman hierarchy", "method"),
    ("g_oversmooth", "gnn", "Measuring and Relieving Over-Smoothing in Deep Graph Convolutional Networks",
     "metrics that quantify over-smoothing of node representations and a regulariser that relieves it in"
     " deep graph convolutional networks", "method"),
    ("g_deep", "gnn", "Residual Connections Enable Training of Very Deep Graph Networks",
     "residual and dense connections for graph networks that make it possible to train models with more"
     " than fifty layers", "method"),
    ("g_pool", "gnn", "Differentiable Hierarchical Pooling for Graph Classification",
     "a differentiable hierarchical pooling operator that learns soft cluster assignments and coarsens the"
     " graph layer by layer for graph classification", "method"),
    ("g_sagpool", "gnn", "Self-Attention Graph Pooling with Learned Node Scores",
     "a self-attention graph pooling layer that keeps the nodes with the highest learned scores", "method"),
    ("g_mol", "gnn", "Graph Networks for Molecular Property Prediction at Scale",
     "graph networks that predict molecular properties from atoms and bonds, trained on millions of"
     " molecules", "method"),
    ("g_kg", "gnn", "Relational Graph Convolutional Networks for Knowledge Base Completion",
     "relational graph convolutional networks with relation-specific weights for knowledge base completion"
     " and entity classification", "method"),
    ("g_traffic", "gnn", "Spatio-Temporal Graph Convolutions for Traffic Forecasting",
     "spatio-temporal graph convolutions that combine graph filters over road sensors with temporal"
     " convolutions to forecast traffic", "method"),
    ("g_rec", "gnn", "Graph Convolutional Recommenders for Web-Scale Item Retrieval",
     "a graph convolutional recommender that propagates embeddings over user-item graphs with billions of"
     " edges", "method"),
    ("g_explain", "gnn", "Generating Instance-Level Explanations for Graph Neural Network Predictions",
     "a model-agnostic method that generates instance-level explanations by identifying the subgraph and"
     " node features most responsible for a prediction", "method"),
    ("g_fedgraph", "fl", "Federated Graph Neural Networks over Decentralised Subgraphs",
     "federated graph neural networks trained over subgraphs held by different owners, with a mechanism for"
     " edges that cross client boundaries", "method"),
    ("g_leak2", "gnn", "Benchmarking Graph Neural Networks on Open Large-Scale Graphs",
     "a benchmark of open large-scale graphs with standard splits and evaluation protocols for graph neural"
     " networks", "study"),
    ("g_dup", "gnn", "Graph neural networks - a review",
     "a review of graph neural networks that groups models into recurrent, convolutional, autoencoding and"
     " spatio-temporal families", "study"),
    # Retrieval-augmented generation (survey 1)
    ("r_rag", "rag", "Jointly Training Retrievers and Generators for Knowledge-Intensive Tasks",
     "a retrieval-augmented generation model that jointly trains a dense retriever and a sequence-to-sequence"
     " generator, treating the retrieved document as a latent variable", "method"),
    ("r_realm", "rag", "Retrieval-Augmented Language Model Pretraining with Latent Documents",
     "retrieval-augmented language model pretraining that back-propagates through a latent document retriever"
     " during masked language modelling", "method"),
    ("r_kilt", "rag", "A Benchmark Suite for Knowledge-Intensive Language Tasks",
     "a benchmark suite for knowledge-intensive language tasks grounded in a single Wikipedia snapshot,"
     " covering question answering, fact checking, entity linking and dialogue", "study"),
    ("r_bm25", "rag", "Revisiting Sparse Lexical Retrieval Baselines for Question Answering",
     "a careful re-examination of sparse lexical retrieval baselines such as BM25 for open-domain question"
     " answering", "study"),
    ("r_dpr", "rag", "Dense Dual-Encoder Passage Retrieval for Open-Domain Question Answering",
     "a dense dual-encoder that embeds questions and passages independently and retrieves passages by maximum"
     " inner product search", "method"),
    ("r_bert", "rag", "BERT (Bidirectional Encoder Representations from Transformers) Revisited",
     "a re-examination of bidirectional encoder representations from transformers, studying masking,"
     " training length and fine-tuning choices", "study"),
    ("r_colbert", "rag", "Late-Interaction Token Matching for Efficient Passage Search",
     "a late-interaction retrieval model that keeps one embedding per token and scores passages by summed"
     " maximum similarity", "method"),
    ("r_rerank", "rag", "Cross-Encoder Passage Re-Ranking with Pretrained Transformers",
     "a cross-encoder that re-ranks candidate passages by jointly encoding the query and each passage with a"
     " pretrained transformer", "method"),
    ("r_hyde", "rag", "Zero-Shot Dense Retrieval with Hypothetical Document Embeddings",
     "zero-shot dense retrieval that embeds a hypothetical answer document written by a language model"
     " instead of the query itself", "method"),
    ("r_dontstop", "al", "Don't Stop Pretraining: Adapt Language Models to Domains and Tasks",
     "domain-adaptive and task-adaptive continued pretraining of language models on unlabelled in-domain"
     " text before fine-tuning", "method"),
    ("r_fid", "rag", "Fusion-in-Decoder: Leveraging Many Passages for Generative Question Answering",
     "a fusion-in-decoder reader that encodes each retrieved passage separately and lets the decoder attend"
     " over all of them", "method"),
    ("r_distill", "rag", "Distilling Reader Knowledge into Dense Retrievers",
     "a training scheme that distils the cross-attention scores of a reader into a dense retriever without"
     " labelled passages", "method"),
    ("r_retro", "rag", "Scaling Retrieval-Enhanced Transformers to Trillions of Tokens",
     "retrieval-enhanced transformers that condition on chunks retrieved from a datastore of trillions of"
     " tokens", "method"),
    ("r_knn", "rag", "Nearest-Neighbour Language Models with External Datastores",
     "nearest-neighbour language models that interpolate next-token predictions with neighbours retrieved"
     " from an external datastore", "method"),
    ("r_selfask", "rag", "Interleaving Retrieval with Chain-of-Thought Reasoning for Multi-Step Questions",
     "a prompting method that interleaves retrieval with chain-of-thought reasoning, issuing a new query"
     " after every reasoning step", "method"),
    ("r_toolformer", "rag", "Language Models That Decide When to Retrieve",
     "language models that learn to decide when to call a retriever based on their own confidence", "method"),
    ("r_compress", "rag", "Compressing Retrieved Contexts for Efficient Retrieval-Augmented Generation",
     "methods for compressing retrieved contexts into short summaries or selected sentences before"
     " generation", "method"),
    ("r_longctx", "rag", "Lost in the Middle? Position Effects in Long-Context Retrieval-Augmented Models",
     "an analysis of position effects in long-context language models that receive many retrieved"
     " passages", "study"),
    ("r_halluc", "rag", "Measuring Hallucination in Knowledge-Grounded Generation",
     "an evaluation framework that measures hallucination by checking generated statements against the"
     " retrieved evidence", "study"),
    ("r_attrib", "rag", "Attributed Question Answering: Evaluation and Modelling for Citation Generation",
     "a formulation of attributed question answering in which models must generate citations that support"
     " their answers, with an evaluation protocol", "study"),
    # Federated learning (survey 2)
    ("f_fedavg", "fl", "Communication-Efficient Model Averaging for Decentralised Deep Learning",
     "a model averaging algorithm that alternates local stochastic gradient steps on clients with weighted"
     " averaging on a server", "method"),
    ("f_cs", "fl", "Client/Server Federated Optimization",
     "a client/server formulation of federated optimisation with adaptive server optimisers applied to"
     " averaged client updates", "method"),
    ("f_sys", "fl", "Towards Federated Learning at Scale: A System Design for Mobile Devices",
     "the system design of a production federated learning platform for mobile devices", "study"),
    ("f_async", "fl", "Asynchronous Federated Optimisation with Staleness-Aware Updates",
     "an asynchronous federated optimisation algorithm that down-weights stale client updates", "method"),
    ("f_prox", "fl", "Proximal Regularisation for Federated Optimisation under Heterogeneity",
     "a proximal regularisation term that keeps local models close to the global model, with convergence"
     " guarantees under statistical heterogeneity", "method"),
    ("f_scaffold", "fl", "Control Variates Correct Client Drift in Federated Averaging",
     "control variates that estimate and correct the drift of client updates in federated averaging",
     "method"),
    ("f_noniid", "fl", "Federated Learning with Non-IID Data: An Empirical Study of Label Skew",
     "an empirical study of federated learning with non-IID data that quantifies the accuracy lost under"
     " label skew", "study"),
    ("f_person", "fl", "Personalised Federated Learning via Model-Agnostic Meta-Learning",
     "personalised federated learning based on model-agnostic meta-learning, which adapts a global"
     " initialisation to each client", "method"),
    ("f_compress", "fl", "Sparse Ternary Compression for Communication-Efficient Federated Learning",
     "sparse ternary compression that combines top-k sparsification, ternary quantisation and error"
     " accumulation", "method"),
    ("f_quant", "fl", "Quantised Gradient Updates for Bandwidth-Limited Federated Training",
     "gradient quantisation schemes that reduce each coordinate to a few bits for bandwidth-limited"
     " federated training", "method"),
    ("f_secagg", "fl", "Practical Secure Aggregation for Privacy-Preserving Federated Learning",
     "a practical secure aggregation protocol that reveals only the sum of client updates and tolerates"
     " dropped clients", "method"),
    ("f_dp", "fl", "Differentially Private Federated Learning at the Client Level",
     "client-level differential privacy for federated learning through update clipping and calibrated"
     " Gaussian noise", "method"),
    ("f_inversion", "fl", "Gradient Inversion Attacks Recover Training Images from Federated Updates",
     "gradient inversion attacks that reconstruct recognisable training images from shared model updates",
     "method"),
    ("f_backdoor", "fl", "Backdoor Attacks on Federated Learning through Model Replacement",
     "backdoor attacks in which a malicious client scales its update so that a hidden behaviour survives"
     " model averaging", "method"),
    ("f_robust", "fl", "Byzantine-Robust Aggregation with Coordinate-Wise Medians",
     "Byzantine-robust aggregation rules based on coordinate-wise medians and trimmed means", "method"),
    ("f_fair", "fl", "Fair Resource Allocation in Federated Networks",
     "a fair federated objective that reweights clients with high loss to obtain a more uniform accuracy"
     " distribution", "method"),
    ("f_select", "fl", "Client Selection for Federated Learning with Heterogeneous Resources",
     "a client selection protocol that chooses participants whose compute and bandwidth let them finish a"
     " round in time", "method"),
    ("f_bench", "fl", "A Benchmark Suite for Realistic Federated Learning Settings",
     "a benchmark suite of naturally partitioned datasets for evaluating federated learning in realistic"
     " settings", "study"),
    # Image super-resolution (survey 41)
    ("s_srcnn", "sr", "Shallow Convolutional Networks for Single-Image Super-Resolution",
     "a three-layer convolutional network that learns an end-to-end mapping from interpolated low-resolution"
     " images to high-resolution ones", "method"),
    ("s_vdsr", "sr", "Very Deep Residual Learning for Accurate Image Super-Resolution",
     "a very deep network of twenty layers that predicts only the residual between the interpolated and the"
     " true high-resolution image", "method"),
    ("s_espcn", "sr", "Efficient Sub-Pixel Convolution for Real-Time Upscaling",
     "an efficient sub-pixel convolution layer that performs upsampling at the end of the network and"
     " enables real-time video upscaling", "method"),
    ("s_edsr", "sr", "Enhanced Residual Networks without Batch Normalisation for Super-Resolution",
     "enhanced residual networks that remove batch normalisation and scale residuals to train large"
     " super-resolution models", "method"),
    ("s_rcan", "sr", "Residual Channel Attention for Very Deep Super-Resolution Networks",
     "residual channel attention blocks nested in residual groups with long skip connections", "method"),
    ("s_swinir", "sr", "Image Restoration with Shifted-Window Transformers",
     "an image restoration transformer that computes self-attention within shifted local windows",
     "method"),
    ("s_light", "sr", "Lightweight Information Distillation Networks for Mobile Super-Resolution",
     "lightweight information distillation networks that split features into retained and refined parts for"
     " mobile deployment", "method"),
    ("s_percep", "sr", "Feature-Space Perceptual Losses for Image Restoration",
     "perceptual losses that compare images in the feature space of a pretrained classification network",
     "method"),
    ("s_srgan", "sr", "Photo-Realistic Super-Resolution with Adversarial Training",
     "a generative adversarial network for super-resolution whose discriminator pushes outputs towards the"
     " manifold of natural images", "method"),
    ("s_esrgan", "sr", "Enhanced Adversarial Super-Resolution with Relativistic Discriminators",
     "an enhanced adversarial super-resolution model with a relativistic discriminator and residual-in-"
     "residual dense blocks", "method"),
    ("s_diff", "sr", "Iterative Refinement with Denoising Diffusion for Image Super-Resolution",
     "a conditional denoising diffusion model that super-resolves images by iterative refinement from pure"
     " noise", "method"),
    ("s_schro", "sr", "Schrödinger Bridges for Generative Modelling",
     "Schrödinger bridges that learn a stochastic transport between two data distributions rather than from"
     " noise", "method"),
    ("s_real", "sr", "Blind Super-Resolution with Learned Degradation Models",
     "learned degradation models that synthesise realistic low-resolution training images for blind"
     " super-resolution", "method"),
    ("s_kernel", "sr", "Kernel Estimation for Blind Image Super-Resolution in the Wild",
     "a kernel estimation network that predicts the blur kernel of each real photograph before restoring"
     " it", "method"),
    ("s_face", "sr", "Face Hallucination with Facial Prior Guidance",
     "a face hallucination network guided by facial landmarks and parsing maps to restore very small faces",
     "method"),
    ("s_video", "sr", "Recurrent Propagation for Video Super-Resolution",
     "bidirectional recurrent propagation of features for video super-resolution", "method"),
    ("s_metric", "sr", "Perceptual Quality Metrics Disagree with Human Judgements on Super-Resolved Images",
     "a study comparing full-reference and perceptual quality metrics with human judgements of"
     " super-resolved images", "study"),
    ("s_iqa", "sr", "Learned Image Quality Assessment for Super-Resolution Benchmarks",
     "a learned image quality assessment model trained on human ratings of super-resolution outputs",
     "method"),
    # Active learning for text classification (survey 42)
    ("a_unc", "al", "Uncertainty Sampling for Low-Resource Text Classification",
     "a systematic evaluation of entropy and least-confidence uncertainty sampling for low-resource text"
     " classification", "study"),
    ("a_human", "al", "Human-in-the-Loop Labelling Interfaces for Active Learning",
     "a human-in-the-loop labelling interface that integrates active learning suggestions into annotation"
     " workflows", "method"),
    ("a_margin", "al", "Margin-Based Query Selection for Support Vector Text Classifiers",
     "margin-based query selection that labels the documents closest to the decision boundary of a support"
     " vector classifier", "method"),
    ("a_bald", "al", "Bayesian Active Learning with Monte Carlo Dropout for Sentence Classification",
     "Bayesian active learning that estimates model uncertainty with Monte Carlo dropout for sentence"
     " classification", "method"),
    ("a_qbc", "al", "Query-by-Committee with Ensembles of Neural Text Classifiers",
     "query-by-committee with ensembles of neural text classifiers, using vote entropy to measure"
     " disagreement", "method"),
    ("a_core", "al", "Core-Set Selection for Active Learning of Deep Text Encoders",
     "a core-set approach that selects batches covering the embedding space of deep text encoders", "method"),
    ("a_badge", "al", "Diverse Batch Active Learning via Gradient Embeddings",
     "diverse batch active learning that clusters gradient embeddings to balance uncertainty and diversity",
     "method"),
    ("a_cal", "al", "Contrastive Active Learning: Acquiring Examples with Maximally Different Predictions",
     "contrastive active learning that acquires examples similar in feature space but with maximally"
     " different predictions", "method"),
    ("a_cold", "al", "Cold-Start Active Learning through Self-Supervised Language Modelling",
     "a cold-start acquisition strategy that uses masked language modelling surprisal to pick the first"
     " batch", "method"),
    ("a_imb", "al", "Active Learning under Class Imbalance for Intent Detection",
     "active learning strategies for intent detection with many rare classes", "method"),
    ("a_cost", "al", "Annotation Cost-Aware Active Learning for Document Classification",
     "cost-aware active learning that divides expected benefit by predicted labelling time", "method"),
    ("a_stop", "al", "Stopping Criteria for Active Learning of Text Classifiers",
     "stopping criteria that end labelling when predictions on a held-out stop set stabilise", "method"),
    ("a_semi", "al", "Combining Active and Semi-Supervised Learning for Sentiment Analysis",
     "a combination of active learning and self-training for sentiment analysis", "method"),
    ("a_eval", "al", "On the Reproducibility of Active Learning Experiments in NLP",
     "a reproducibility study of active learning experiments in natural language processing", "study"),
    ("a_transfer", "al", "Transferability of Actively Acquired Datasets across Model Families",
     "an analysis of whether data acquired actively for one model family helps other model families",
     "study"),
    # Dialogue system evaluation (survey 43 names them, but its all_cites is empty)
    ("d_overlap", "dialogue",
     "Word-Overlap Metrics Correlate Poorly with Human Judgements of Dialogue Responses",
     "an analysis of word-overlap metrics for dialogue response generation and their correlation with human"
     " judgements", "study"),
    ("d_adem", "dialogue", "Learning an Automatic Dialogue Evaluation Model from Human Scores",
     "an automatic dialogue evaluation model that learns to predict human scores from context, reference and"
     " response", "method"),
    ("d_ruber", "dialogue", "Referenced and Unreferenced Metrics for Open-Domain Dialogue Evaluation",
     "an evaluation metric that blends similarity to a reference with a learned unreferenced score of"
     " contextual fit", "method"),
    ("d_pairwise", "dialogue", "Pairwise Human Comparisons of Multi-Turn Dialogue Systems",
     "a pairwise human evaluation protocol that compares two full multi-turn conversations side by side",
     "method"),
    ("d_likert", "dialogue", "Likert Scales versus Ranking for Crowdsourced Evaluation of Chatbots",
     "a comparison of Likert-scale ratings and rankings for crowdsourced chatbot evaluation", "study"),
    ("d_crowd", "dialogue", "Quality Control for Crowdsourced Dialogue Annotation",
     "quality control procedures for crowdsourced dialogue annotation, including attention checks and"
     " agreement thresholds", "method"),
    ("d_usersim", "dialogue", "Evaluating Task-Oriented Dialogue Systems with Simulated Users",
     "an agenda-based user simulator for evaluating task-oriented dialogue systems", "method"),
    ("d_engage", "dialogue", "Predicting User Engagement in Open-Domain Conversations",
     "a model that predicts user engagement in open-domain conversations from interaction signals", "method"),
)  # fmt: skip

# Papers cited by a survey but published after it (temporal leakage); every other date is drawn.
FIXED_DATES = {"g_leak1": dt.date(2021, 6, 15), "g_leak2": dt.date(2021, 11, 20)}
# Papers a survey's prose discusses although its ``all_cites`` is empty: dated before that survey.
MENTIONED_ONLY = {key: 43 for key, topic, *_ in HAND_PAPERS if topic == "dialogue"}

# ---------------------------------------------------------------------------------------------------
# Surveys. Nodes: (id, parent_id, title, cited keys, retrieval question or None, content).
# ---------------------------------------------------------------------------------------------------

Node = tuple[int, int, str, tuple[str, ...], "str | None", str]


@dataclass(frozen=True)
class SurveySpec:
    """A hand-written ground-truth survey; ``all_cites`` is derived from its nodes' cited keys."""

    survey_id: int
    title: str
    date: dt.date
    category: str
    bertopic_cd: float
    abstract: str
    nodes: tuple[Node, ...]
    empty_all_cites: bool = False


SURVEYS: tuple[SurveySpec, ...] = (
    SurveySpec(
        0,
        "Graph Neural Networks: A Survey of Architectures, Expressive Power and Applications",
        dt.date(2021, 3, 4),
        "cs.LG",
        0.4127,
        "Graph neural networks learn representations of nodes and graphs by propagating information along"
        " edges. This survey organises the field into spectral and spatial architectures, reviews what is"
        " known about their expressive power and depth, and summarises applications in chemistry, knowledge"
        " graphs, traffic forecasting and recommendation. We close with open challenges in explainability,"
        " decentralised training and benchmarking.",
        (
            (1, 0, "Introduction", ("g_review", "g_gcn", "g_mpnn"),
             "What are graph neural networks and why are they used to learn from graph-structured data?",
             "Graphs are a natural representation for molecules, social networks, citation networks and road"
             " maps, and learning from them has become a central topic in machine learning. Early reviews of"
             " graph neural networks organised the field around neural message passing, in which every node"
             " repeatedly aggregates information from its neighbours, and around spectral graph convolutions"
             " that brought semi-supervised node classification within reach of simple models. This survey"
             " revisits these foundations, discusses the expressive power and depth limits of the resulting"
             " architectures, and summarises applications and open problems."),
            (2, 0, "Foundations of Graph Neural Networks", (), None, ""),
            (3, 2, "Spectral Methods", ("g_cheb", "g_gcn"),
             "How do spectral graph convolutions define filters on graphs?",
             "Spectral approaches define convolution through the eigendecomposition of the graph Laplacian."
             " Because an explicit eigendecomposition is expensive, fast localised filters approximate the"
             " spectral response with Chebyshev polynomials of the Laplacian, so that each filter only"
             " touches a node's K-hop neighbourhood. A first-order version of this approximation gives the"
             " familiar graph convolution used for semi-supervised node classification, which remains a"
             " strong baseline on citation benchmarks."),
            (4, 2, "Spatial Message Passing", (), None,
             "Spatial methods define convolution directly on each node's local neighbourhood."),
            (5, 4, "Neighbourhood Sampling and Mini-Batching", ("g_sage", "g_scal"),
             "How can graph neural networks be trained on graphs with millions of nodes?",
             "Full-batch training does not scale to graphs with millions of nodes. Inductive representation"
             " learning with neighbour sampling draws a fixed number of neighbours per layer, so that"
             " embeddings can be computed for nodes unseen during training. Cluster-based mini-batch training"
             " partitions the graph into dense clusters and restricts each batch to one or a few clusters,"
             " which reduces memory use and allows deeper graph convolutional networks on large graphs."),
            (6, 4, "Attention-Based Aggregation", ("g_gat", "g_leak1"),
             "How do attention mechanisms and graph transformers weight neighbours in graph neural networks?",
             "Instead of weighting all neighbours equally, attention-based neighbourhood aggregation learns a"
             " score for every edge and normalises the scores over the neighbourhood. More recent graph"
             " transformers let every node attend to every other node and inject the graph structure through"
             " structural positional encodings, trading the locality bias of message passing for a global"
             " receptive field."),
            (7, 0, "Expressive Power", ("g_gin", "g_wl"),
             "How powerful are graph neural networks at distinguishing non-isomorphic graphs?",
             "A line of theoretical work asks how powerful graph neural networks are at distinguishing"
             " non-isomorphic graphs. Message passing with injective sum aggregation is at most as"
             " discriminative as the one-dimensional Weisfeiler-Lehman colour refinement test, and"
             " architectures that reach this bound can be built with multilayer perceptrons over summed"
             " neighbour features. Higher-order variants that operate on tuples of nodes follow the"
             " k-dimensional Weisfeiler-Lehman hierarchy and gain expressivity at a steep computational"
             " cost."),
            (8, 0, "Depth and Over-Smoothing", ("g_oversmooth", "g_deep"),
             "Why do deep graph convolutional networks over-smooth and how can very deep graph networks be"
             " trained?",
             "Stacking many message-passing layers tends to make node representations indistinguishable, a"
             " phenomenon known as over-smoothing. Metrics that measure the smoothness of representations"
             " show that it appears after only a few layers, and regularisers that relieve over-smoothing"
             " can restore accuracy. Residual and dense connections borrowed from convolutional networks"
             " make it possible to train very deep graph networks with more than fifty layers."),
            (9, 0, "Graph-Level Learning", (), None, ""),
            (10, 9, "Hierarchical Pooling", ("g_pool", "g_sagpool"),
             "Which pooling methods map a whole graph to a vector for graph classification?",
             "Graph classification requires a readout that maps a variable-sized graph to a fixed vector."
             " Differentiable hierarchical pooling learns a soft assignment of nodes to clusters at every"
             " layer, producing a coarsened graph that is processed by the next block. Self-attention graph"
             " pooling instead keeps the top-scoring nodes according to learned node scores, which is cheaper"
             " and works well on molecular and bioinformatics benchmarks."),
            (11, 0, "Applications", (), None, "We group applications by the kind of graph they operate on."),
            (12, 11, "Molecules and Knowledge Graphs", ("g_mol", "g_kg"),
             "How are graph neural networks applied to molecular property prediction and knowledge base"
             " completion?",
             "In chemistry, graph networks predict molecular properties directly from atoms and bonds and"
             " have been scaled to datasets with millions of molecules. For knowledge graphs, relational"
             " graph convolutional networks use relation-specific weight matrices to complete missing facts"
             " in a knowledge base and to classify entities."),
            (13, 11, "Traffic and Recommendation", ("g_traffic", "g_rec"),
             "How do graph neural networks forecast traffic and power recommender systems?",
             "Road networks carry signals that change over time, and spatio-temporal graph convolutions"
             " combine graph filters over sensors with temporal convolutions to forecast traffic speed and"
             " flow. In recommendation, graph convolutional recommenders propagate embeddings over user-item"
             " interaction graphs and have been deployed for web-scale item retrieval with billions of"
             " edges."),
            (14, 0, "Open Challenges", ("g_explain", "g_fedgraph", "g_leak2"),
             "What open challenges remain for graph neural networks in explainability, decentralised data and"
             " benchmarking?",
             "Several challenges remain open. Predictions of graph neural networks are hard to interpret,"
             " and methods that generate instance-level explanations identify the subgraph and features most"
             " responsible for a prediction. Data that are spread across organisations motivate federated"
             " graph neural networks trained over decentralised subgraphs. Finally, progress is difficult to"
             " measure without benchmarks on open large-scale graphs with standard splits and evaluation"
             " protocols."),
            (15, 0, "Conclusion", ("g_review", "g_gin"),
             "What are the main conclusions about the state of graph neural network research?",
             "Graph neural networks have matured from spectral filters to a broad family of message-passing"
             " and attention-based models. Reviews of the area agree that their expressive power is bounded"
             " by the Weisfeiler-Lehman test, and understanding how powerful graph neural networks can"
             " become without losing scalability is the main question for the coming years."),
        ),
    ),
    SurveySpec(
        1,
        "Retrieval-Augmented Generation for Knowledge-Intensive Language Tasks: A Survey",
        dt.date(2023, 5, 17),
        "cs.CL",
        0.3561,
        "Retrieval-augmented generation conditions language models on documents retrieved from an external"
        " corpus. We review sparse, dense and late-interaction retrievers, the ways retrieval is integrated"
        " into generation and pretraining, and methods for adaptive retrieval and context compression. We"
        " also discuss how faithfulness and attribution are evaluated and which benchmarks are used.",
        (
            (1, 0, "Introduction", ("r_rag", "r_realm", "r_kilt"),
             "Why do language models need retrieval augmentation for knowledge-intensive tasks?",
             "Large language models store a surprising amount of world knowledge in their parameters, but"
             " this knowledge is hard to update and easy to hallucinate. Retrieval-augmented generation"
             " addresses both problems by jointly training retrievers and generators, so that a model"
             " conditions its output on documents fetched from an external corpus. Retrieval-augmented"
             " language model pretraining showed that a latent document retriever can be learned from the"
             " language modelling signal alone, and benchmark suites for knowledge-intensive language tasks"
             " made it possible to compare such systems across question answering, fact checking and"
             " dialogue."),
            (2, 0, "Retrievers", (), None, ""),
            (3, 2, "Sparse and Dense Retrieval", ("r_bm25", "r_dpr", "r_bert"),
             "How do sparse lexical retrieval and dense passage retrieval compare for question answering?",
             "Sparse lexical retrieval with BM25 remains a strong baseline, and revisiting these baselines"
             " carefully shows that they are competitive on many question answering datasets. Dense"
             " dual-encoder passage retrieval instead encodes questions and passages independently with a"
             " pretrained bidirectional transformer encoder such as BERT, and retrieves by maximum inner"
             " product search. Dense retrievers outperform lexical ones when training data are available but"
             " generalise less reliably to new domains."),
            (4, 2, "Late Interaction and Re-Ranking", ("r_colbert", "r_rerank"),
             "How do late-interaction retrievers and cross-encoder re-rankers improve passage search?",
             "Between single-vector dense retrieval and full cross-attention lies late-interaction token"
             " matching, which keeps one embedding per token and scores a passage by summing maximum"
             " similarities, enabling efficient passage search with precomputed document representations."
             " Cross-encoder passage re-ranking with pretrained transformers is more accurate still and is"
             " typically applied to the top hundred candidates returned by a first-stage retriever."),
            (5, 2, "Query Rewriting and Zero-Shot Retrieval", (), None,
             "Queries are often rewritten before retrieval when no labelled training data exist."),
            (6, 5, "Hypothetical Document Expansion", ("r_hyde", "r_dontstop"),
             "How can hypothetical documents written by a language model improve zero-shot dense retrieval?",
             "Zero-shot dense retrieval with hypothetical document embeddings asks a language model to"
             " write a plausible answer document and retrieves real documents that are close to its"
             " embedding. The quality of such expansions depends on how well the generator matches the"
             " target domain, which is why continued domain-adaptive pretraining of language models on"
             " in-domain text and task data remains a useful step before retrieval."),
            (7, 0, "Integrating Retrieval into Generation", (), None,
             "Retrieved passages can enter a model at training time or at inference time."),
            (8, 7, "Retrieve-then-Read Pipelines", ("r_fid", "r_rag", "r_distill"),
             "How do retrieve-then-read pipelines combine many retrieved passages with a generator?",
             "Most systems follow a retrieve-then-read design. Fusion-in-decoder models encode each retrieved"
             " passage separately together with the question and let the decoder attend over all of them,"
             " which lets generative question answering leverage many passages at once. Jointly training"
             " retrievers and generators end to end treats the retrieved document as a latent variable, and"
             " distilling the reader's cross-attention scores into dense retrievers provides supervision"
             " without labelled passages."),
            (9, 7, "Retrieval during Pretraining", ("r_realm", "r_retro", "r_knn"),
             "How can retrieval be built into language model pretraining and next-token prediction?",
             "Retrieval can also be built into pretraining. Retrieval-augmented language model pretraining"
             " with latent documents back-propagates through a retriever during masked language modelling."
             " Retrieval-enhanced transformers scale this idea to a datastore of trillions of tokens and"
             " match much larger models, while nearest-neighbour language models interpolate the model's"
             " next-token distribution with neighbours found in an external datastore without any"
             " retraining."),
            (10, 7, "Adaptive and Iterative Retrieval", ("r_selfask", "r_toolformer"),
             "When and how often should a language model retrieve during multi-step reasoning?",
             "Single-shot retrieval fails for multi-step questions. Interleaving retrieval with"
             " chain-of-thought reasoning issues a new query after each reasoning step and improves"
             " multi-hop question answering. Language models that decide when to retrieve go further and"
             " learn to call the retriever only when their own confidence is low, which saves computation on"
             " easy inputs."),
            (11, 0, "Efficiency and Long Contexts", ("r_compress", "r_longctx"),
             "How can retrieved contexts be compressed, and do long-context models use evidence in the middle"
             " of their input?",
             "Feeding many passages to a generator is expensive. Compressing retrieved contexts into short"
             " summaries or selected sentences reduces the cost of retrieval-augmented generation with little"
             " loss in accuracy. Long-context models make it possible to include more passages, but position"
             " effects mean that relevant evidence in the middle of a long context is often ignored."),
            (12, 0, "Evaluation", (), None, ""),
            (13, 12, "Faithfulness and Hallucination", ("r_halluc", "r_attrib"),
             "How is hallucination measured and how are generated citations evaluated in retrieval-augmented"
             " generation?",
             "A central promise of retrieval is faithfulness. Measuring hallucination in knowledge-grounded"
             " generation requires comparing each generated statement with the retrieved evidence, and"
             " attributed question answering evaluates whether a model can generate citations that actually"
             " support its answers."),
            (14, 12, "Benchmarks", ("r_kilt", "r_bm25"),
             "Which benchmarks are used to evaluate retrieval-augmented models on knowledge-intensive tasks?",
             "Benchmark suites for knowledge-intensive language tasks share a single Wikipedia snapshot"
             " across question answering, slot filling, entity linking and dialogue, so that retrieval"
             " quality and downstream accuracy can be measured together. Strong sparse lexical baselines"
             " should always be reported on such suites."),
            (15, 0, "Conclusion and Outlook", ("r_attrib", "r_retro"),
             "What are the future directions for retrieval-augmented generation?",
             "Retrieval-augmented generation has moved from research prototypes to deployed assistants. We"
             " expect attribution and citation generation to become standard requirements, and"
             " retrieval-enhanced transformers with very large datastores to narrow the gap between small and"
             " large models."),
        ),
    ),
    SurveySpec(
        2,
        "Federated Learning: A Survey on Optimisation, Privacy and Systems",
        dt.date(2020, 8, 21),
        "cs.LG",
        0.2894,
        "Federated learning trains models across many clients without centralising their data. We survey"
        " optimisation algorithms for heterogeneous clients, techniques that reduce communication, privacy"
        " mechanisms and attacks, fairness and personalisation, and the systems that deploy federated"
        " learning on millions of devices.",
        (
            (1, 0, "Introduction", ("f_fedavg", "f_cs", "f_sys"),
             "What is federated learning and how is a shared model trained without collecting client data?",
             "Federated learning trains a shared model across many clients, such as phones or hospitals,"
             " without collecting their raw data. The canonical algorithm, communication-efficient model"
             " averaging, alternates local stochastic gradient steps on each client with a weighted average"
             " on the server, and this client/server federated optimisation view underlies most later work."
             " Deploying federated learning at scale on mobile devices adds systems constraints that shape"
             " every part of the design."),
            (2, 0, "Optimisation", (), None,
             "This section reviews optimisation algorithms for the federated setting."),
            (3, 2, "Federated Averaging and Its Variants", ("f_fedavg", "f_cs", "f_async"),
             "Which variants of federated averaging change the local and server updates?",
             "Model averaging reduces communication by running several local epochs between synchronisation"
             " rounds. Client/server federated optimisation generalises the server update to adaptive"
             " optimisers such as momentum and Adam applied to the averaged client update. Asynchronous"
             " federated optimisation removes the synchronisation barrier altogether and uses staleness-aware"
             " updates to down-weight the contributions of slow clients."),
            (4, 2, "Statistical Heterogeneity", (), None, ""),
            (5, 4, "Client Drift Correction", ("f_prox", "f_scaffold"),
             "How can client drift caused by heterogeneous data be corrected in federated optimisation?",
             "When client data differ, local updates drift towards local optima. Proximal regularisation adds"
             " a term that keeps each local model close to the global one and provides convergence guarantees"
             " under heterogeneity. Control variates correct client drift more directly by estimating the"
             " difference between the client and server update directions and subtracting it during local"
             " training."),
            (6, 4, "Non-IID Label Distributions", ("f_noniid", "f_person"),
             "How does label skew across clients affect federated learning accuracy?",
             "Empirical studies of federated learning with non-IID data show that label skew, where each"
             " client sees only a few classes, can reduce accuracy by more than ten points. Sharing a small"
             " public dataset partly closes the gap, and personalised federated learning via model-agnostic"
             " meta-learning adapts the global model to each client with a few local steps."),
            (7, 0, "Communication Efficiency", ("f_compress", "f_quant"),
             "How can compression and quantisation reduce communication in federated learning?",
             "Communication is often the bottleneck. Sparse ternary compression combines top-k"
             " sparsification with ternary quantisation and error accumulation, while quantised gradient"
             " updates reduce each coordinate to a few bits for bandwidth-limited federated training. Both"
             " reduce upstream traffic by one to two orders of magnitude."),
            (8, 0, "Privacy and Security", (), None, ""),
            (9, 8, "Secure Aggregation and Differential Privacy", ("f_secagg", "f_dp"),
             "How do secure aggregation and differential privacy protect client updates?",
             "Practical secure aggregation protocols let the server learn only the sum of client updates,"
             " even if some clients drop out during a round. Differential privacy at the client level bounds"
             " what the final model reveals about any single participant by clipping each client update and"
             " adding calibrated Gaussian noise."),
            (10, 8, "Attacks on Federated Learning", ("f_inversion", "f_backdoor", "f_robust"),
             "Which attacks threaten federated learning and how can aggregation be made robust?",
             "Sharing updates is not automatically private: gradient inversion attacks recover recognisable"
             " training images from federated updates. Malicious clients can also insert backdoors through"
             " model replacement, scaling their update so that it survives averaging. Byzantine-robust"
             " aggregation rules such as coordinate-wise medians and trimmed means limit the influence of"
             " such clients at some cost in accuracy."),
            (11, 0, "Fairness and Personalisation", ("f_fair", "f_person"),
             "How can federated learning serve every client fairly and provide personalised models?",
             "A single global model may serve some clients poorly. Fair resource allocation in federated"
             " networks reweights the objective so that clients with high loss receive more attention, and"
             " meta-learning approaches to personalised federated learning offer each client a model adapted"
             " to its own distribution."),
            (12, 0, "Systems and Deployment", ("f_sys", "f_select", "f_bench"),
             "What system design and client selection problems arise when deploying federated learning at"
             " scale?",
             "Production systems for federated learning at scale must cope with devices that are only"
             " available when idle, charging and on an unmetered network. Client selection for federated"
             " learning with heterogeneous resources chooses participants whose compute and bandwidth allow"
             " them to finish a round in time, and realistic benchmark suites for federated settings provide"
             " naturally partitioned datasets for evaluation."),
            (13, 0, "Federated Learning on Graphs", ("g_fedgraph",),
             "How can graph neural networks be trained on subgraphs held by different owners?",
             "Many datasets are graphs split across owners, such as transaction networks held by different"
             " banks. Federated graph neural networks train over decentralised subgraphs and must handle"
             " edges that cross client boundaries, which standard federated averaging ignores."),
            (14, 0, "Conclusion", (), None, "Federated learning remains an active and fast-moving field."),
            (15, 0, "Future Directions", ("f_bench", "f_dp"),
             "Which open problems should future federated learning research address?",
             "Future work needs benchmark suites that reflect realistic federated settings, including device"
             " availability and label noise. Combining client-level differential privacy with personalisation"
             " without destroying utility is another open problem."),
        ),
    ),
    SurveySpec(
        41,
        "Deep Learning for Single-Image Super-Resolution: A Survey",
        dt.date(2022, 2, 10),
        "cs.CV",
        0.5236,
        "Single-image super-resolution reconstructs a high-resolution image from a low-resolution one. This"
        " survey reviews convolutional, attention-based and transformer architectures, perceptual,"
        " adversarial and diffusion-based objectives, methods for real-world degradations, domain-specific"
        " applications to faces and video, and the metrics used to evaluate them.",
        (
            (1, 0, "Introduction", ("s_srcnn", "s_edsr", "s_srgan"),
             "What is single-image super-resolution and how has deep learning changed it?",
             "Single-image super-resolution recovers a high-resolution image from a low-resolution"
             " observation, an ill-posed problem with many plausible solutions. Shallow convolutional"
             " networks first showed that an end-to-end mapping can outperform sparse-coding methods,"
             " enhanced residual networks without batch normalisation then set new fidelity records, and"
             " photo-realistic super-resolution with adversarial training shifted attention from pixel"
             " accuracy to perceptual quality."),
            (2, 0, "Problem Formulation", (), None,
             "The low-resolution image is a blurred, downsampled and noisy copy of the original."),
            (3, 0, "Network Architectures", (), None, ""),
            (4, 3, "Early Convolutional Models", ("s_srcnn", "s_vdsr", "s_espcn"),
             "Which early convolutional networks were proposed for image super-resolution?",
             "The first deep models upsampled the input with bicubic interpolation and refined it with a"
             " shallow convolutional network of three layers. Very deep residual learning extended this to"
             " twenty layers by predicting only the residual between the interpolated and the true image."
             " Efficient sub-pixel convolution moved upsampling to the end of the network, which allows"
             " real-time upscaling of video on a single GPU."),
            (5, 3, "Residual and Attention Networks", ("s_edsr", "s_rcan"),
             "How do residual blocks and channel attention enable very deep super-resolution networks?",
             "Enhanced residual networks remove batch normalisation from residual blocks and scale the"
             " residuals, which stabilises the training of large models. Residual channel attention adds a"
             " squeeze-and-excitation style attention to every block and nests residual groups inside long"
             " skip connections, allowing very deep super-resolution networks with hundreds of layers."),
            (6, 3, "Transformer-Based Restoration", ("s_swinir", "s_light"),
             "How are transformers and lightweight networks used for image restoration?",
             "Image restoration with shifted-window transformers computes self-attention within local windows"
             " that shift between layers, giving a strong trade-off between accuracy and parameters. For"
             " deployment on phones, lightweight information distillation networks split features into"
             " retained and refined parts and reach good quality with under a million parameters."),
            (7, 0, "Learning Objectives", (), None,
             "The choice of loss function decides what the network optimises for."),
            (8, 7, "Perceptual and Adversarial Losses", ("s_percep", "s_srgan", "s_esrgan"),
             "How do perceptual and adversarial losses produce sharper super-resolved images?",
             "Pixel losses lead to blurry outputs because they average over plausible solutions."
             " Feature-space perceptual losses compare images in the activation space of a pretrained"
             " classification network. Photo-realistic super-resolution with adversarial training adds a"
             " discriminator that pushes outputs towards the natural image manifold, and enhanced"
             " adversarial super-resolution with relativistic discriminators produces sharper textures with"
             " fewer artefacts."),
            (9, 7, "Generative Priors", (), None, ""),
            (10, 9, "Diffusion and Bridge Models", ("s_diff", "s_schro"),
             "How are diffusion models and Schrödinger bridges applied to super-resolution?",
             "Iterative refinement with denoising diffusion starts from pure noise and denoises step by"
             " step conditioned on the low-resolution input, producing samples that human raters often"
             " cannot tell from real photographs. Schrödinger bridges for generative modelling replace the"
             " noise prior with a learned transport between two data distributions, which suits restoration"
             " tasks where the degraded image is a better starting point than noise."),
            (11, 0, "Real-World Super-Resolution", ("s_real", "s_kernel"),
             "How can super-resolution models handle unknown real-world degradations?",
             "Models trained on bicubic downsampling fail on real photographs, whose degradations are"
             " unknown. Blind super-resolution with learned degradation models synthesises realistic"
             " training pairs, and kernel estimation for blind image super-resolution in the wild predicts"
             " the blur kernel of each image before restoring it."),
            (12, 0, "Domain-Specific Applications", ("s_face", "s_video"),
             "How is super-resolution adapted to faces and to video?",
             "Faces are a common special case: face hallucination with facial prior guidance uses landmarks"
             " and parsing maps to restore very small faces. Video super-resolution exploits neighbouring"
             " frames, and recurrent propagation passes features forward and backward through time to"
             " aggregate information from the whole sequence."),
            (13, 0, "Evaluation Metrics", ("s_metric", "s_iqa"),
             "Which metrics evaluate super-resolution quality and do they agree with human judgements?",
             "PSNR and SSIM remain the standard fidelity metrics, but studies show that perceptual quality"
             " metrics often disagree with human judgements on super-resolved images. Learned image quality"
             " assessment models trained on human ratings of super-resolution benchmarks correlate better"
             " with perceived quality."),
            (14, 0, "Conclusion", ("s_light", "s_diff"),
             "What trade-offs will shape future super-resolution research?",
             "Super-resolution has progressed from shallow networks to transformers and diffusion models."
             " Lightweight models for mobile devices and iterative refinement with diffusion mark two"
             " opposite ends of the efficiency spectrum that future work must bridge."),
        ),
    ),
    SurveySpec(
        42,
        "Active Learning for Text Classification: A Survey of Query Strategies and Deep Models",
        dt.date(2021, 11, 2),
        "cs.CL",
        0.4718,
        "Active learning lets a text classifier choose which documents to label. We review uncertainty,"
        " committee, diversity and contrastive query strategies, discuss how pretrained transformers change"
        " the picture, and cover practical issues such as cold start, class imbalance, annotation cost,"
        " stopping and reproducibility.",
        (
            (1, 0, "Introduction", ("a_unc", "r_bert", "a_human"),
             "Why is active learning used to reduce labelling cost in text classification?",
             "Labelling text is expensive, and active learning reduces this cost by letting the model choose"
             " which examples an annotator should label next. Uncertainty sampling for low-resource text"
             " classification is the simplest and most widely used strategy. The arrival of pretrained"
             " transformers such as BERT has changed which strategies work, and human-in-the-loop labelling"
             " interfaces determine how much of the theoretical saving is realised in practice."),
            (2, 0, "Query Strategies", (), None, ""),
            (3, 2, "Uncertainty-Based Strategies", ("a_unc", "a_margin", "a_bald"),
             "Which uncertainty-based query strategies select documents for labelling?",
             "Uncertainty sampling selects the examples whose predicted class distribution has the highest"
             " entropy or the lowest confidence. Margin-based query selection, originally developed for"
             " support vector text classifiers, picks documents closest to the decision boundary. Bayesian"
             " active learning with Monte Carlo dropout estimates model uncertainty by averaging several"
             " stochastic forward passes and works well for sentence classification."),
            (4, 2, "Committee and Ensemble Methods", ("a_qbc",),
             "How does query-by-committee use disagreement between classifiers to select examples?",
             "Query-by-committee trains several models and queries the examples on which they disagree most."
             " With ensembles of neural text classifiers, vote entropy and the KL divergence between members"
             " are the most common disagreement measures, and the ensemble doubles as a better-calibrated"
             " predictor."),
            (5, 2, "Diversity and Representativeness", (), None,
             "Uncertainty alone tends to select redundant batches of similar documents."),
            (6, 5, "Core-Sets and Gradient Embeddings", ("a_core", "a_badge"),
             "How do core-set and gradient-embedding methods select diverse batches?",
             "Core-set selection chooses a batch that covers the embedding space of the unlabelled pool,"
             " framing active learning for deep text encoders as a k-centre problem. Diverse batch active"
             " learning via gradient embeddings combines uncertainty and diversity by clustering the"
             " gradients of the loss with respect to the last layer."),
            (7, 5, "Contrastive Acquisition", ("a_cal",),
             "What is contrastive active learning and which examples does it acquire?",
             "Contrastive active learning acquires examples that are close in the model's feature space but"
             " receive maximally different predictions, which targets the regions where the decision boundary"
             " is least certain and avoids outliers."),
            (8, 0, "Active Learning with Pretrained Transformers", ("r_bert", "r_dontstop", "a_cold"),
             "How do pretrained transformers and continued pretraining change active learning for text?",
             "Fine-tuned BERT models are strong even with few labels, which shrinks the gap between active"
             " and random selection. Continued domain-adaptive and task-adaptive pretraining on the"
             " unlabelled pool, as advocated by work arguing not to stop pretraining, improves every"
             " acquisition strategy. Cold-start active learning through self-supervised language modelling"
             " uses the masked language modelling loss to choose the first batch before any label exists."),
            (9, 0, "Practical Considerations", (), None, ""),
            (10, 9, "Cold Start and Class Imbalance", ("a_cold", "a_imb"),
             "How should the first batch be chosen and how does class imbalance affect active learning?",
             "The first batch must be chosen without a trained model, and self-supervised cold-start"
             " strategies based on language modelling surprisal outperform random seeds. Under class"
             " imbalance, as in intent detection with many rare intents, active learning must balance"
             " uncertainty against the need to find examples of minority classes at all."),
            (11, 9, "Annotation Cost and Stopping", ("a_cost", "a_stop"),
             "How can annotation cost be modelled and when should active learning stop?",
             "Examples differ in how long they take to label, and annotation cost-aware active learning for"
             " document classification divides the expected benefit by the predicted labelling time. Stopping"
             " criteria decide when further labelling no longer pays off, for example when predictions on a"
             " held-out stop set stabilise."),
            (12, 0, "Combining Active and Semi-Supervised Learning", ("a_semi",),
             "How can active learning be combined with self-training on unlabelled text?",
             "Unlabelled data can be used twice: active learning selects informative examples for"
             " annotation, while self-training assigns pseudo-labels to confident ones. Combining active and"
             " semi-supervised learning for sentiment analysis reaches full-supervision accuracy with a"
             " fraction of the labels."),
            (13, 0, "Reproducibility and Evaluation", ("a_eval", "a_transfer"),
             "Are reported gains of active learning in NLP reproducible and do acquired datasets transfer?",
             "Reported gains of active learning are often within the variance of random seeds. Studies of"
             " the reproducibility of active learning experiments in NLP recommend multiple runs and strong"
             " random baselines, and work on the transferability of actively acquired datasets shows that"
             " data chosen by one model family may not help another."),
            (14, 0, "Conclusion", (), None,
             "Active learning remains useful but must be evaluated with care."),
            (15, 0, "Outlook", ("a_human", "a_transfer"),
             "What developments are expected in active learning for text classification?",
             "Future systems will couple acquisition strategies with better human-in-the-loop labelling"
             " interfaces and will need to ensure that actively acquired datasets remain useful when the"
             " model family changes."),
        ),
    ),
    SurveySpec(
        43,
        "Evaluating Open-Domain Dialogue Systems: A Survey of Human and Automatic Methods",
        dt.date(2019, 9, 12),
        "cs.CL",
        0.3349,
        "Evaluating dialogue systems remains an open problem. We survey human evaluation protocols, from"
        " crowdsourced ratings to pairwise comparisons, automatic word-overlap and learned metrics, and the"
        " evaluation of task-oriented systems with simulated users.",
        (
            (1, 0, "Introduction", (), None,
             "Evaluating open-domain dialogue systems is notoriously difficult because many different"
             " responses can be appropriate for the same context. Human judgements remain the reference"
             " standard, yet word-overlap metrics borrowed from machine translation correlate poorly with"
             " them, and learned evaluation models have been proposed to close this gap."),
            (2, 0, "Human Evaluation", (), None,
             "Human evaluation asks annotators to rate responses or whole conversations along dimensions such"
             " as fluency, relevance, engagement and consistency. Predicting user engagement in open-domain"
             " conversations from interaction signals offers a cheaper proxy for some of these dimensions."),
            (3, 2, "Crowdsourcing Protocols", (), None,
             "Most human studies are run on crowdsourcing platforms, where quality control for crowdsourced"
             " dialogue annotation, including attention checks and inter-annotator agreement thresholds, is"
             " essential to obtain reliable labels."),
            (4, 3, "Pairwise Comparison versus Likert Scales", (), None,
             "Comparing Likert scales with ranking for crowdsourced evaluation of chatbots shows that"
             " relative judgements are more consistent than absolute ones. Pairwise human comparisons of"
             " multi-turn dialogue systems exploit this by showing annotators two full conversations side by"
             " side."),
            (5, 0, "Automatic Metrics", (), None, ""),
            (6, 5, "Word-Overlap Metrics", (), None,
             "BLEU, METEOR and ROUGE compare a response with a single reference. Analyses of word-overlap"
             " metrics for dialogue responses find that their correlation with human judgements is weak at"
             " the response level and only moderate at the system level."),
            (7, 5, "Learned Evaluation Models", (), None,
             "Learning an automatic dialogue evaluation model from human scores trains a regressor over"
             " context, reference and response encodings. Referenced and unreferenced metrics combine"
             " similarity to a reference with a learned score of how well a response fits its context,"
             " removing the need for multiple references."),
            (8, 0, "Task-Oriented Dialogue Evaluation", (), None,
             "Task-oriented systems are judged mainly by task success and efficiency."),
            (9, 0, "Conclusion", (), None,
             "No single automatic metric yet replaces human evaluation of open-domain dialogue. Simulated"
             " users make the evaluation of task-oriented dialogue systems cheaper, and we expect learned"
             " metrics to converge with such user models."),
        ),
        empty_all_cites=True,
    ),
)  # fmt: skip


# ---------------------------------------------------------------------------------------------------
# Building the sample
# ---------------------------------------------------------------------------------------------------


@dataclass
class Paper:
    """A corpus entry before doc ids are assigned."""

    key: str
    topic: str
    title: str
    gist: str
    kind: str
    date: dt.date | None = None
    authors: list[str] = field(default_factory=list)
    abstract: str = ""


@dataclass
class Sample:
    """The three official files (as JSON-ready lists), the README text and the edge cases."""

    surveys: list[dict[str, Any]]
    corpus: list[dict[str, Any]]
    queries: list[dict[str, Any]]
    readme: str
    edge_cases: dict[str, Any]


def lower_phrase(text: str) -> str:
    """Lower-case a title-cased phrase for use inside a sentence, keeping acronyms such as ``IoT``/``5G``."""
    words = []
    for word in text.split(" "):
        keep = sum(ch.isupper() for ch in word) > 1 or any(ch.isdigit() for ch in word)
        words.append(word if keep else word.lower())
    return " ".join(words)


def random_day(rng: random.Random, start: dt.date, end: dt.date) -> dt.date:
    """A day drawn uniformly from ``[start, end]``."""
    return start + dt.timedelta(days=rng.randint(0, (end - start).days))


def make_authors(rng: random.Random, low: int = 2, high: int = 6) -> list[str]:
    """Distinct plausible author names."""
    wanted = rng.randint(low, high)
    names: list[str] = []
    while len(names) < wanted:
        name = f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"
        if name not in names:
            names.append(name)
    return names


def make_abstract(rng: random.Random, topic: Topic, gist: str, kind: str) -> str:
    """A 3-5 sentence abstract of 300-900 characters that names the paper's gist in topic vocabulary."""
    context = rng.choice(topic.contexts)
    contribution = rng.choice(CONTRIBUTION).format(g=gist)
    contribution = contribution[0].upper() + contribution[1:]
    results = rng.choice(RESULTS_STUDY if kind == "study" else RESULTS_METHOD).format(
        n=rng.choice(NUMBER_WORDS), metric=rng.choice(topic.metrics), x=rng.randint(2, 15)
    )
    detail = rng.choice(DETAILS)
    closing = rng.choice(CLOSINGS)
    sentences = [context, contribution]
    if rng.random() < 0.6:
        sentences.append(detail)
    sentences.append(results)
    if rng.random() < 0.5:
        sentences.append(closing)
    text = " ".join(sentences)
    if len(text) < 300:
        text = " ".join([context, contribution, detail, results, closing])
    assert 300 <= len(text) <= 900, (len(text), text)
    return text


def generated_papers(rng: random.Random, topic: Topic, taken: set[str]) -> list[Paper]:
    """``topic.n_generated`` uncited papers with distinct method/task pairs and distinct normalised titles."""
    pairs = [(m, t) for m in topic.methods for t in topic.tasks]
    rng.shuffle(pairs)
    papers: list[Paper] = []
    for method, task in pairs:
        if len(papers) == topic.n_generated:
            break
        title_fmt, gist_fmt = rng.choice(TITLE_PATTERNS)
        title = title_fmt.format(M=method, T=task)
        if normalise_title(title) in taken:
            continue
        taken.add(normalise_title(title))
        gist = gist_fmt.format(m=lower_phrase(method), t=lower_phrase(task))
        papers.append(Paper(f"{topic.name}_gen{len(papers):02d}", topic.name, title, gist, "method"))
    assert len(papers) == topic.n_generated, topic.name
    return papers


#: The real surveys.json has string section ids while the root's parent_id is an integer: so does the sample.
ROOT_PARENT_ID = -1


def survey_uuid(survey_id: int) -> str:
    """A stable UUID string per survey: the real queries.json's ``original_id`` is a UUID string."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"surge-sample/survey/{survey_id}"))


def node_depths(nodes: list[dict[str, Any]]) -> dict[str, int]:
    """Depth of every node below the root (root = 0), following ``parent_id``."""
    by_id = {n["id"]: n for n in nodes}
    depths: dict[str, int] = {}
    for node in nodes:
        depth, cur = 0, node
        while cur["title"] != "root":
            depth += 1
            cur = by_id[cur["parent_id"]]
        depths[node["id"]] = depth
    return depths


def official_title_tail(title: str) -> str:
    """What the released evaluator's reference pattern keeps of ``[1] <title>`` (protocol.md §4)."""
    match = _TITLE_TAIL.search(title)
    return match.group(0) if match else ""


def build_sample() -> Sample:
    """Build the whole sample in memory; every random choice comes from one ``Random(SEED)``."""
    rng = random.Random(SEED)

    # Which surveys cite which hand-written paper (order of first citation).
    citing: dict[str, list[int]] = {}
    for spec in SURVEYS:
        for node in spec.nodes:
            for key in node[3]:
                if spec.survey_id not in citing.setdefault(key, []):
                    citing[key].append(spec.survey_id)
    survey_date = {s.survey_id: s.date for s in SURVEYS}

    papers = [Paper(key, topic, title, gist, kind) for key, topic, title, gist, kind in HAND_PAPERS]
    known = {p.key for p in papers}
    missing = sorted(k for k in citing if k not in known)
    assert not missing, f"sections cite unknown papers: {missing}"
    taken = {normalise_title(p.title) for p in papers}
    for topic in TOPICS.values():
        papers.extend(generated_papers(rng, topic, taken))

    for paper in papers:
        if paper.key in FIXED_DATES:
            paper.date = FIXED_DATES[paper.key]
        elif paper.key in citing or paper.key in MENTIONED_ONLY:
            sids = citing.get(paper.key) or [MENTIONED_ONLY[paper.key]]
            first = min(survey_date[s] for s in sids)
            paper.date = random_day(rng, first - dt.timedelta(days=4 * 365), first - dt.timedelta(days=45))
        else:
            paper.date = random_day(rng, dt.date(2016, 1, 1), dt.date(2023, 6, 30))
        paper.authors = make_authors(rng)
        paper.abstract = make_abstract(rng, TOPICS[paper.topic], paper.gist, paper.kind)

    rng.shuffle(papers)
    # The two titles that normalise alike: the cited one first, so the released evaluator (last wins)
    # resolves the shared normal form to the uncited duplicate.
    pos = {p.key: i for i, p in enumerate(papers)}
    if pos["g_review"] > pos["g_dup"]:
        i, j = pos["g_review"], pos["g_dup"]
        papers[i], papers[j] = papers[j], papers[i]
    doc_id = {p.key: i for i, p in enumerate(papers)}

    corpus = [
        {
            "Title": p.title,
            "Authors": p.authors,
            "Year": str(p.date.year),
            "Date": iso(p.date),
            "Abstract": p.abstract,
            "Category": TOPICS[p.topic].category,
            "doc_id": doc_id[p.key],
        }
        for p in papers
    ]

    surveys: list[dict[str, Any]] = []
    queries: list[dict[str, Any]] = []
    for spec in SURVEYS:
        structure = [{"id": "0", "parent_id": ROOT_PARENT_ID, "title": "root", "content": ""}]
        structure += [{"id": str(n[0]), "parent_id": str(n[1]), "title": n[2], "content": n[5]} for n in spec.nodes]
        all_keys = sorted({k for n in spec.nodes for k in n[3]})
        all_cites = [] if spec.empty_all_cites else sorted(doc_id[k] for k in all_keys)
        surveys.append(
            {
                "survey_id": spec.survey_id,
                "survey_title": spec.title,
                "authors": make_authors(rng, 3, 5),
                "year": str(spec.date.year),
                "date": iso(spec.date),
                "category": spec.category,
                "abstract": spec.abstract,
                "structure": structure,
                "all_cites": all_cites,
                "Bertopic_CD": spec.bertopic_cd,
            }
        )
        if spec.empty_all_cites:
            continue
        by_id = {n["id"]: n for n in structure}
        depths = node_depths(structure)
        for node_id, _parent, title, keys, question, content in spec.nodes:
            if len(content) < LONG_CONTENT:
                continue
            chain, cur = [], by_id[str(node_id)]
            while cur["title"] != "root":
                chain.append([LEVEL_NAMES[depths[cur["id"]]], cur["title"]])
                cur = by_id[cur["parent_id"]]
            cites = sorted({doc_id[k] for k in keys})
            assert cites, f"survey {spec.survey_id} section {title!r} has content but cites nothing"
            origin = len(cites) + rng.choice((0, 0, 1, 2))
            queries.append(
                {
                    "original_id": survey_uuid(spec.survey_id),
                    "query_id": len(queries),
                    "date": iso(spec.date),
                    "year": str(spec.date.year),
                    "category": spec.category,
                    "content": content,
                    "prefix_titles": [["title", spec.title], *reversed(chain)],
                    "prefix_titles_query": question,
                    "cites": cites,
                    "cite_extract_rate": round(len(cites) / origin, 4),
                    "origin_cites_number": origin,
                }
            )

    edge_cases = find_edge_cases(surveys, corpus, doc_id, citing)
    check(surveys, corpus, queries, edge_cases)
    return Sample(surveys, corpus, queries, render_readme(surveys, corpus, queries, edge_cases), edge_cases)


def find_edge_cases(
    surveys: list[dict[str, Any]],
    corpus: list[dict[str, Any]],
    doc_id: dict[str, int],
    citing: dict[str, list[int]],
) -> dict[str, Any]:
    """Collect the deliberate edge cases with their doc ids (all keys are strings: JSON-printable)."""
    date = {s["survey_id"]: s["date"] for s in surveys}
    cited_by = {
        d: [s["survey_id"] for s in surveys if d in s["all_cites"]] for d in sorted(doc_id[k] for k in citing)
    }
    cited_by = {d: sids for d, sids in cited_by.items() if sids}

    def ids_with(char: str) -> list[int]:
        return [d for d in cited_by if char in corpus[d]["Title"]]

    leakage = [
        {"survey_id": sid, "doc_id": d, "paper_date": corpus[d]["Date"], "survey_date": date[sid]}
        for d, sids in cited_by.items()
        for sid in sids
        if corpus[d]["Date"] > date[sid]
    ]
    return {
        "duplicate_normalised_titles": {
            "normalised": normalise_title(corpus[doc_id["g_review"]]["Title"]),
            "cited_earlier": doc_id["g_review"],
            "uncited_later_resolved_by_official": doc_id["g_dup"],
            "cited_by": cited_by[doc_id["g_review"]],
        },
        "cited_titles_with_punctuation": {
            "?": ids_with("?"),
            "'": ids_with("'"),
            "()": [d for d in ids_with("(") if d in ids_with(")")],
            ":": ids_with(":"),
            "/": ids_with("/"),
        },
        "temporal_leakage": leakage,
        "non_ascii_title": [d for d in cited_by if not corpus[d]["Title"].isascii()],
        "cited_by_two_surveys": {str(d): sids for d, sids in cited_by.items() if len(sids) > 1},
        "empty_all_cites_surveys": [s["survey_id"] for s in surveys if not s["all_cites"]],
    }


def check(
    surveys: list[dict[str, Any]],
    corpus: list[dict[str, Any]],
    queries: list[dict[str, Any]],
    edge_cases: dict[str, Any],
) -> None:
    """Fail loudly if the sample breaks one of the properties later tests rely on."""
    norms: dict[str, list[int]] = {}
    for paper in corpus:
        norms.setdefault(normalise_title(paper["Title"]), []).append(paper["doc_id"])
    dups = [ids for ids in norms.values() if len(ids) > 1]
    dup = edge_cases["duplicate_normalised_titles"]
    assert dups == [[dup["cited_earlier"], dup["uncited_later_resolved_by_official"]]], dups
    cited = sorted({d for s in surveys for d in s["all_cites"]})
    for d in cited:
        tail = official_title_tail(corpus[d]["Title"])
        if tail != corpus[d]["Title"]:  # the released pattern truncates it: the tail must resolve to nothing
            assert normalise_title(tail) not in norms, (corpus[d]["Title"], tail)
    for survey in surveys:
        titles = [n["title"] for n in survey["structure"]]
        assert titles.count("root") == 1
        assert not any("root" in t or "Abstract:" in t for t in titles if t != "root"), titles
        assert max(node_depths(survey["structure"]).values()) == 3, survey["survey_id"]
        long_nodes = [n for n in survey["structure"] if len(n["content"]) >= LONG_CONTENT]
        n_queries = sum(q["original_id"] == survey_uuid(survey["survey_id"]) for q in queries)
        assert n_queries == (len(long_nodes) if survey["all_cites"] else 0)
        for node in survey["structure"]:
            assert "[" not in node["content"], "ground-truth content carries no bracket citations"
    for paper in corpus:
        assert 300 <= len(paper["Abstract"]) <= 900
    cases = edge_cases
    assert all(cases["cited_titles_with_punctuation"].values()), cases
    assert len(cases["temporal_leakage"]) >= 2 and cases["non_ascii_title"] and cases["cited_by_two_surveys"]
    assert len(corpus) >= 320 and len(queries) >= 50


def render_readme(
    surveys: list[dict[str, Any]],
    corpus: list[dict[str, Any]],
    queries: list[dict[str, Any]],
    edge_cases: dict[str, Any],
) -> str:
    """The sample's README: provenance, contents and the edge cases with their doc ids."""

    def title(d: int) -> str:
        return corpus[d]["Title"]

    rows = []
    for s in surveys:
        n_long = sum(len(n["content"]) >= LONG_CONTENT for n in s["structure"])
        n_q = sum(q["original_id"] == survey_uuid(s["survey_id"]) for q in queries)
        split = "test" if s["survey_id"] <= 40 else "train"
        rows.append(
            f"| {s['survey_id']} | {split} | {s['survey_title']} | {s['date'][:10]} | {s['category']} "
            f"| {len(s['structure'])} | {n_long} | {len(s['all_cites'])} | {n_q} |"
        )
    n_cited = len({d for s in surveys for d in s["all_cites"]})
    dup = edge_cases["duplicate_normalised_titles"]
    later = dup["uncited_later_resolved_by_official"]
    punct = edge_cases["cited_titles_with_punctuation"]
    punct_lines = [
        f"  - `{char}`: " + ", ".join(f"{d} ({title(d)!r})" for d in ids) for char, ids in punct.items()
    ]
    leak_lines = [
        f"  - doc {c['doc_id']} ({title(c['doc_id'])!r}, {c['paper_date'][:10]}) cited by survey"
        f" {c['survey_id']} ({c['survey_date'][:10]})"
        for c in edge_cases["temporal_leakage"]
    ]
    shared_lines = [
        f"  - doc {d} ({title(int(d))!r}): surveys {sids}"
        for d, sids in edge_cases["cited_by_two_surveys"].items()
    ]
    lines = [
        "# Synthetic SurGE sample",
        "",
        "**All data in this folder is synthetic.** It was written for this project by its developers and",
        "generated by `examples/make_sample.py` (deterministic; rerun it to reproduce these files byte for",
        "byte). The surveys, section texts, paper titles, abstracts and author names are invented; a few",
        "titles echo well-known papers so that realistic edge cases can be tested, but every abstract and",
        "every date, author list and survey here is made up. Nothing is taken from the SurGE release, so the",
        "folder carries the project's licence.",
        "",
        "The files follow the official SurGE JSON schema exactly (see the project's protocol notes, §1):",
        "`surveys.json`, `corpus.json` (capitalised keys, `doc_id` 0..N-1 in file order) and `queries.json`.",
        "",
        "## Contents",
        "",
        f"- {len(surveys)} surveys, {len(corpus)} corpus papers ({n_cited} cited by at least one survey),"
        f" {len(queries)} queries.",
        "- Corpus: the cited papers, uncited papers on the same six topics, and off-topic papers from twelve"
        " other fields.",
        "",
        "| survey_id | split | title | date | category | nodes | sections with >= 100 chars | all_cites |"
        " queries |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        *rows,
        "",
        "## Conventions that make metric values computable by hand",
        "",
        "- Every `structure` has one `root` node (id `\"0\"`, `parent_id` -1, empty content) and reaches depth 3"
        " (section > subsection > subsubsection).",
        "- Section content is plain prose without bracket citations. Each survey has sections with >= 100"
        " characters of content, a few short ones (< 100 characters) and a few empty grouping headings.",
        "- A survey's `all_cites` is exactly the union of the papers its sections discuss; survey 43 has an"
        " empty `all_cites` (as some real surveys do) and therefore no queries.",
        "- Every section with >= 100 characters of content in a survey with citations cites at least one"
        " paper and yields exactly one query, in structure order; `query_id` counts from 0. Short and empty"
        " sections cite nothing and yield no query. Query `cites` is a subset of its survey's `all_cites`.",
        "- No section title other than `root` contains the substring `root` or `Abstract:`.",
        "",
        "Section titles with >= 100 characters of content (the ground-truth headings of SHR and the"
        " reference sections of ROUGE/BLEU):",
        "",
        *[
            f"- survey {s['survey_id']}: "
            + "; ".join(n["title"] for n in s["structure"] if len(n["content"]) >= LONG_CONTENT)
            for s in surveys
        ],
        "",
        "## Deliberate edge cases (doc ids)",
        "",
        f"- Titles that normalise alike (`{dup['normalised']}`): doc {dup['cited_earlier']}"
        f" ({title(dup['cited_earlier'])!r}, cited by survey {dup['cited_by']}) comes first in the file;"
        f" doc {later} ({title(later)!r},"
        " not cited) comes later, so the released evaluator (last one wins) resolves the title to the uncited"
        " paper.",
        "- Cited titles with punctuation. The released evaluator's reference pattern keeps only the text"
        " after the last `?`, `'`, `)` or `/` of a reference line, so these titles do not resolve there; `:`"
        " is allowed by the pattern and listed for contrast:",
        *punct_lines,
        "- Cited papers dated after the survey that cites them (temporal leakage):",
        *leak_lines,
        *[
            f"- Non-ASCII title: doc {d} ({title(d)!r}); normalisation drops the `ö`, so an ASCII spelling"
            " (`Schrodinger`) does not resolve to it."
            for d in edge_cases["non_ascii_title"]
        ],
        "- Papers cited by two surveys:",
        *shared_lines,
        f"- Surveys with an empty `all_cites`: {edge_cases['empty_all_cites_surveys']}.",
        "",
    ]
    return "\n".join(lines)


def write_json(path: Path, obj: Any) -> None:
    """The on-disk format of the sample: UTF-8, one-space indent, trailing newline."""
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        json.dump(obj, handle, ensure_ascii=False, indent=1)
        handle.write("\n")


def main(argv: list[str] | None = None) -> int:
    """Write the four sample files into ``--out`` and print the edge cases."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (default: %(default)s)")
    args = parser.parse_args(argv)
    sample = build_sample()
    args.out.mkdir(parents=True, exist_ok=True)
    write_json(args.out / "surveys.json", sample.surveys)
    write_json(args.out / "corpus.json", sample.corpus)
    write_json(args.out / "queries.json", sample.queries)
    (args.out / "README.md").write_text(sample.readme, encoding="utf-8", newline="\n")
    EDGE_CASES.clear()
    EDGE_CASES.update(sample.edge_cases)
    print(
        f"wrote {len(sample.surveys)} surveys, {len(sample.corpus)} papers, {len(sample.queries)} queries"
        f" to {args.out}"
    )
    print("EDGE_CASES = {")
    for key, value in EDGE_CASES.items():
        print(f"    {key!r}: {json.dumps(value, ensure_ascii=False)},")
    print("}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
