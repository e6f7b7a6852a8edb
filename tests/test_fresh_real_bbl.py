"""The ``.bbl`` reader of ``surge data fresh`` on three real natbib author-year bibliographies (tests/fixtures/bbl/,
MIT and Apache-2.0): every title and arXiv id below was read off the files by hand, as that folder's README says.

natbib styles close a ``misc`` entry's title block with its date (``\\newblock Title, 2024.``) and mark two works of
one author and year with a suffix (``2023{\\natexlab{a}}``), and with a ``month`` the date is a month and year
(``\\newblock Title, January 2026.``): neither may stay in a title, since a title that carries
a date is searched as written when the entry has no arXiv id (and matched against the corpus when it has one).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from surge_dataset.core.vocabulary import BBL
from surge_dataset.fresh.bibliography import find_bibliography, parse_bbl

BBL_DIR = Path(__file__).parent / "fixtures" / "bbl"

PLAINNAT_TITLES = {
    "arditi2024refusal": "Refusal in language models is mediated by a single direction",
    "beaglehole2025universal": "Toward universal steering and monitoring of AI models",
    "dettmers2022int8": "LLM.int8(): 8-bit matrix multiplication for transformers at scale",
    "elhage2022toy": "Toy models of superposition",
    "fiottokaufman2024nnsight": "NNsight and NDIF: Democratizing access to open-weight foundation model internals",
    "frantar2022gptq": "GPTQ: Accurate post-training quantization for generative pre-trained transformers",
    "jorgensen2023mean": "Improving activation steering in language models with mean-centring",
    "lermen2023lora": "LoRA fine-tuning efficiently undoes safety training in Llama 2-Chat 70B",
    "li2023inference": "Inference-time intervention: Eliciting truthful answers from a language model",
    "lin2024awq": "AWQ: Activation-aware weight quantization for LLM compression and acceleration",
    "marks2023geometry": "The geometry of truth: Emergent linear structure in large language model representations of "
                         "true/false datasets",
    "ouyang2022training": "Training language models to follow instructions with human feedback",
    "panickssery2023steering": "Steering Llama 2 via contrastive activation addition",
    "siu2025cosmic": "COSMIC: Generalized refusal direction identification in LLM activations",
    "templeton2024scaling": "Scaling monosemanticity: Extracting interpretable features from Claude 3 Sonnet",
    "turner2023activation": "Activation addition: Steering language models without optimization",
    "wei2024brittleness": "Assessing the brittleness of safety alignment via pruning and low-rank modifications",
    "zou2023representation": "Representation engineering: A top-down approach to AI transparency",
    "zou2023gcg": "Universal and transferable adversarial attacks on aligned language models",
}
PLAINNAT_IDS = {
    "arditi2024refusal": "2406.11717", "beaglehole2025universal": "2502.03708", "dettmers2022int8": "2208.07339",
    "elhage2022toy": "2209.10652", "fiottokaufman2024nnsight": "2407.14561", "frantar2022gptq": "2210.17323",
    "jorgensen2023mean": "2312.03813", "lermen2023lora": "2310.20624", "li2023inference": "2306.03341",
    "lin2024awq": "2306.00978", "marks2023geometry": "2310.06824", "ouyang2022training": "2203.02155",
    "panickssery2023steering": "2312.06681", "siu2025cosmic": "2506.00085", "turner2023activation": "2308.10248",
    "wei2024brittleness": "2402.05162", "zou2023representation": "2310.01405", "zou2023gcg": "2307.15043",
}
ICML_TITLES = {
    "anthropictools2024": "Tool use with Claude",
    "anthropicagentskills2025": "Equipping agents for the real world with Agent Skills",
    "selfdebug2023": "Teaching large language models to self-debug",
    "czapla2026": "The unauthorized tool call problem",
    "englander2026": "Agents explore but agents ignore: LLMs lack environmental curiosity",
    "gou2024critic": "CRITIC: Large language models can self-correct with tool-interactive critiquing",
    "stableTOOLbench2024": "StableToolBench: Towards stable large-scale benchmarking on tool learning of large "
                           "language models",
    "healy2026internal": "Internal representations as indicators of hallucinations in agent tool selection",
    "huang2024metatool": "MetaTool benchmark for large language models: Deciding whether to use tools and which to "
                         "use",
    "licl2026": "Localizing and correcting errors for LLM-based planners",
    "li2023apibank": "API-Bank: A comprehensive benchmark for tool-augmented LLMs",
    "langchain_toolnotfound2025": "Allow graceful handling of `tool not found' errors in LangGraph ToolNode to enable "
                                  "agent self-correction",
    "mckenzie2023inversescaling": "Inverse scaling: When bigger isn't better",
    "min2022rethinking": "Rethinking the role of demonstrations: What makes in-context learning work?",
    "jsonmode2024": "Structured outputs",
    "openaitools2024": "Function calling",
    "bfcl2024": "Berkeley function calling leaderboard",
    "bfclv4_2025": "Berkeley function calling leaderboard (BFCL) V4",
    "qi2026brief": "Brief is better: Non-monotonic chain-of-thought budget effects in function-calling language "
                   "agents",
    "reflexion2023": "Reflexion: Language agents with verbal reinforcement learning",
    "spracklen2025packages": "We have a package for you! a comprehensive analysis of package hallucinations by code "
                             "generating LLMs",
    "appworld2024": "AppWorld: A controllable world of apps and people for benchmarking interactive coding agents",
    "wei2022ushaped": "Inverse scaling can become U-shaped",
    "outlines2023": "Efficient guided generation for large language models",
    "cao2025reliability": "Reducing tool hallucination via reliability alignment",
    "reactagent2023": "ReAct: Synergizing reasoning and acting in language models",
    "taubench2024": "τ-bench: A benchmark for tool-agent-user interaction in real-world domains",
    "yin2026reasoningtrap": "The reasoning trap: How enhancing LLM reasoning amplifies tool hallucination",
    "toolbehonest2024": "ToolBeHonest: A multi-level hallucination diagnostic benchmark for tool-augmented large "
                        "language models",
    "fissiongrpo2026": "Robust tool use via fission-GRPO: Learning to recover from execution errors",
    "bugstudy2026": "An empirical study of bugs in modern LLM agent frameworks",
}
ICML_IDS = {
    "selfdebug2023": "2304.05128", "englander2026": "2604.17609", "gou2024critic": "2305.11738",
    "stableTOOLbench2024": "2403.07714", "healy2026internal": "2601.05214", "huang2024metatool": "2310.03128",
    "licl2026": "2602.00276", "mckenzie2023inversescaling": "2306.09479", "min2022rethinking": "2202.12837",
    "qi2026brief": "2604.02155", "reflexion2023": "2303.11366", "spracklen2025packages": "2406.10279",
    "appworld2024": "2407.18901", "wei2022ushaped": "2211.02011", "outlines2023": "2307.09702",
    "cao2025reliability": "2412.04141", "reactagent2023": "2210.03629", "taubench2024": "2406.12045",
    "yin2026reasoningtrap": "2510.22977", "toolbehonest2024": "2406.20015", "fissiongrpo2026": "2601.15625",
    "bugstudy2026": "2602.21806",
}
MOLTBOOK_TITLES = {
    "alexander2026afterweekend": "Moltbook: After the first weekend",
    "aragon2017thread": "To thread or not to thread: The impact of conversation threading on online discussion",
    "crane2008robust": "Robust dynamic classes revealed by measuring the response function of a social system",
    "gleeson2014competition": "Competition-induced criticality in a model of meme popularity",
    "gomez2013structure": "Modeling the structure and evolution of discussion cascades",
    "harris1963theory": "The Theory of Branching Processes",
    "hawkes1971spectra": "Spectra of some self-exciting and mutually exciting point processes",
    "meital2024branch": "The branch not taken: Predicting branching in online conversations",
    "park2023generative": "Generative agents: Interactive simulacra of human behavior",
    "rizoiu2017expecting": "Expecting to be HIP: Hawkes intensity processes for social media popularity",
    "simulamet2026observatoryarchive": "moltbook-observatory-archive",
    "willison2026moltbook": "Moltbook is the most interesting place on the internet right now",
    "zhao2015seismic": "SEISMIC: A self-exciting point process model for predicting tweet popularity",
}
MOLTBOOK_IDS = {"meital2024branch": "2404.13613"}
#: folder -> (titles, ids, keys whose title block the date closes) by hand (README).
HAND = {
    "activation-steering-plainnat": (PLAINNAT_TITLES, PLAINNAT_IDS, 12),
    "tool-fabrication-icml": (ICML_TITLES, ICML_IDS, 17),
    "moltbook-plainnat": (MOLTBOOK_TITLES, MOLTBOOK_IDS, 3),
}
_MONTH = "(?:January|February|March|April|May|June|July|August|September|October|November|December)"
_A_DATE_AT_THE_END = re.compile(rf"(?:19|20)\d{{2}}[a-z]?\W*$|natexlab|\b{_MONTH}\b")


@pytest.mark.parametrize("name", list(HAND))
def test_every_title_and_id_of_a_real_natbib_bbl(name: str) -> None:
    titles, ids, _ = HAND[name]
    parsed = parse_bbl((BBL_DIR / name / "main.bbl").read_text(encoding="utf-8"), file="main.bbl")
    assert parsed.keys == list(titles)  # every entry, in the file's order
    assert parsed.titles == titles
    assert parsed.ids == ids
    assert parsed.note_titles == {}
    assert not [t for t in parsed.titles.values() if _A_DATE_AT_THE_END.search(t)]


@pytest.mark.parametrize("name", list(HAND))
def test_the_files_hold_the_dated_title_blocks_they_stand_for(name: str) -> None:
    """The date-closed title blocks (``, 2024.``, ``, 2023{\\natexlab{a}}.``, ``, January 2026.``) are in the files
    themselves (so the test above is not vacuous)."""
    titles, _, dated = HAND[name]
    text = (BBL_DIR / name / "main.bbl").read_text(encoding="utf-8")
    entries = dict(re.findall(r"\\bibitem\[.*?\]\{(\S+?)\}(.*?)(?=\\bibitem|\\end\{thebibliography\})", text, re.S))
    closed = [key for key, body in entries.items()  # the second block (the title's) ends ", 2024." / ", 2023{..a}."
              if re.search(rf",\s+(?:{_MONTH}\s+)?(?:19|20)\d{{2}}(?:\{{\\natexlab\{{[a-z]\}}\}})?\.$",
                           body.split("\\newblock")[1].strip())]
    assert len(entries) == len(titles) and len(closed) == dated


def test_the_natbib_suffix_in_a_real_title_block_is_no_part_of_the_title() -> None:
    text = (BBL_DIR / "activation-steering-plainnat" / "main.bbl").read_text(encoding="utf-8")
    assert "transparency,\n  2023{\\natexlab{a}}.\n" in text and "models, 2023{\\natexlab{b}}.\n" in text
    parsed = parse_bbl(text)
    assert parsed.titles["zou2023gcg"] == "Universal and transferable adversarial attacks on aligned language models"


def test_the_bbl_named_after_the_main_file_is_the_bibliography() -> None:
    """As ``surge data fresh`` reads an e-print: ``main.bbl`` beside ``main.tex``, no ``.bib`` to fall back on."""
    text = (BBL_DIR / "tool-fabrication-icml" / "main.bbl").read_text(encoding="utf-8")
    found = find_bibliography({"main.bbl": text}, "\\bibliography{references}", "main.tex")
    assert found is not None and (found.kind, found.file, found.entries) == (BBL, "main.bbl", 31)
    assert found.titles == ICML_TITLES and found.ids == ICML_IDS
    assert set(found.id_sources.values()) == {BBL}


def test_a_month_and_year_closing_a_real_title_block_is_no_part_of_the_title() -> None:
    """plainnat writes a ``misc`` entry's ``month`` and ``year`` after its title when nothing else comes between."""
    text = (BBL_DIR / "moltbook-plainnat" / "main.bbl").read_text(encoding="utf-8")
    assert "internet right now,\n  January 2026.\n\\newblock URL" in text
    parsed = parse_bbl(text)
    assert parsed.titles["willison2026moltbook"] == "Moltbook is the most interesting place on the internet right now"
