"""The six surveyed research areas (one per hand-written survey): arXiv category, abstract vocabulary and
title parts for generated (uncited) papers."""

from __future__ import annotations

from .records import Topic

SURVEYED_TOPICS: tuple[Topic, ...] = (
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
)
