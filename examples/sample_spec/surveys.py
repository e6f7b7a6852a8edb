"""Hand-written ground-truth surveys 0-2 (graph neural networks, retrieval-augmented generation, federated
learning); surveys 41-43 are in :mod:`.more_surveys`."""

from __future__ import annotations

import datetime as dt

from .records import SurveySpec

SURVEYS_0_2: tuple[SurveySpec, ...] = (
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
)  # fmt: skip
