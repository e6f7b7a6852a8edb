"""Hand-written papers: key -> (topic, title, gist, kind). Cited ones are those a survey section names."""

from __future__ import annotations

import datetime as dt

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
