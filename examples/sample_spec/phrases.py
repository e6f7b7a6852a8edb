"""Sentence and title patterns, and name lists, for the generated parts of the sample (abstracts, titles,
authors)."""

from __future__ import annotations

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
