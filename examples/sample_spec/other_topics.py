"""Twelve other research areas: the corpus' off-topic papers are generated from these."""

from __future__ import annotations

from .records import Topic

OTHER_TOPICS: tuple[Topic, ...] = (
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
