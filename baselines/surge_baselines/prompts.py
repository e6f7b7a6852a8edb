"""The generation prompts of the baseline systems, registered in :mod:`surge_dataset.llm.prompts`.

Our own wording, written from the system descriptions of protocol.md §7-§8 (not taken from the
systems' repositories). Every template is named ``gen.<system>.<step>`` (``gen.common.*`` when shared);
a change to any of them must bump :data:`BASELINE_PROMPTS_VERSION`, which each generated survey's
sidecar records (the LLM cache keys on the rendered text, so old answers are never reused for new
wording). Papers are shown to the LLM as ``[P3] Title. Abstract: ...`` and cited back by label.
"""

from __future__ import annotations

from surge_dataset.llm.prompts import PROMPTS, PromptTemplate, register

__all__ = ["BASELINE_PROMPTS_VERSION"]

#: Bump when any template below changes.
BASELINE_PROMPTS_VERSION = "surge-baselines-1"

_WRITER = (
    "You are an expert researcher writing a scientific literature survey. You write formal, precise "
    "academic prose. You cite papers only by the labels you are given, in square brackets, such as "
    "[P3] or [P1, P4], and you never invent references."
)
_MEMORY_WRITER = (
    "You are an expert researcher writing a scientific literature survey from memory, without access "
    "to any documents. You write formal, precise academic prose."
)
_JUDGE = "You judge the relevance of scientific papers. You reply with the requested answer only."

_OUTLINE_FORMAT = (
    "Write one heading per line: a main section as 'N. Title: one-sentence description' and a "
    "subsection as 'N.M Title: one-sentence description'. Do not include an abstract or a references "
    "section. Write nothing else."
)
_SECTION_RULES = (
    "Write one to three paragraphs of prose only: no headings, no lists, no reference list. Every "
    "paragraph must cite the papers that support its statements, by their labels in square brackets "
    "placed before the full stop, as in: \"Spectral filters generalise convolution to graphs [P2, P5].\" "
    "Cite only labels from the list above."
)

_TEMPLATES = [
    # --- shared --------------------------------------------------------------------------------------
    PromptTemplate(
        name="gen.common.outline",
        description="Outline of a survey from the topic and the titles of the papers it may use.",
        system=_WRITER,
        user=(
            "Plan the outline of a survey titled \"{topic}\". These are the papers available to it:\n"
            "{papers}\n\n"
            "Propose at most {max_sections} main sections, each with at most {max_subsections} "
            "subsections, that organise these papers into a clear structure. " + _OUTLINE_FORMAT
        ),
    ),
    PromptTemplate(
        name="gen.common.section",
        description="Content of one section, grounded on the papers selected for it.",
        system=_WRITER,
        user=(
            "You are writing the survey \"{topic}\". Its outline is:\n{outline}\n\n"
            "Write the section \"{section}\"{description}. Base it on these papers:\n{papers}\n\n"
            + _SECTION_RULES
        ),
    ),
    # --- RAG: batched summaries keeping paper labels, then one fusion call ----------------------------
    PromptTemplate(
        name="gen.rag.summarise",
        description="RAG step 1: summary of one batch of retrieved papers, keeping their labels.",
        system=_WRITER,
        user=(
            "Survey topic: \"{topic}\".\n\nPapers:\n{papers}\n\n"
            "Summarise what these papers contribute to the topic, in one or two paragraphs. State each "
            "paper's main idea and cite it with its label in square brackets, for example [P2]."
        ),
    ),
    PromptTemplate(
        name="gen.rag.fuse",
        description="RAG step 2: one survey fused from the partial summaries.",
        system=_WRITER,
        user=(
            "Write a literature survey titled \"{topic}\" from the partial summaries below. Organise it "
            "into at most {max_sections} sections; start each section with a Markdown heading line that "
            "begins with '## ' followed by a title naming its theme (subsections: '### '). Keep the "
            "citation labels exactly as they appear, such as [P1] or [P7], and add no new ones. Do not "
            "write a reference list.\n\n"
            "Partial summaries:\n{summaries}"
        ),
    ),
    # --- AutoSurvey: outline -> sections with their most relevant papers -> refinement -> merge -------
    PromptTemplate(
        name="gen.autosurvey.refine",
        description="AutoSurvey refinement: coherence with the neighbouring sections and citation format.",
        system=_WRITER,
        user=(
            "You are revising the section \"{section}\" of the survey \"{topic}\".\n\n"
            "End of the previous section:\n{previous}\n\n"
            "Draft of this section:\n{draft}\n\n"
            "Beginning of the next section:\n{next}\n\n"
            "Rewrite the draft so that it follows on from the previous section, leads into the next one, "
            "avoids repeating them and reads fluently. Keep its citations in the form [P3] and drop any "
            "other citation style. Return only the revised section text, without a heading."
        ),
    ),
    # --- StepSurvey: title + primary headings -> subtopics with paper subsets -> sequential drafting --
    PromptTemplate(
        name="gen.stepsurvey.headings",
        description="StepSurvey step 1: the primary headings of the survey.",
        system=_WRITER,
        user=(
            "You are planning the survey \"{topic}\". The available papers are:\n{papers}\n\n"
            "List the primary section headings of the survey, at most {max_sections}, in reading order, "
            "one per line as 'N. Heading'. Write nothing else."
        ),
    ),
    PromptTemplate(
        name="gen.stepsurvey.subtopics",
        description="StepSurvey step 2: subtopics of one primary heading, each tied to a subset of papers.",
        system=_WRITER,
        user=(
            "The survey \"{topic}\" has the section \"{heading}\". Candidate papers:\n{papers}\n\n"
            "Split this section into at most {max_subsections} subtopics. For each subtopic write one line "
            "'Subtopic title | P1, P4' giving its title and the labels of the papers above that belong to "
            "it. Write nothing else."
        ),
    ),
    PromptTemplate(
        name="gen.stepsurvey.subsection",
        description="StepSurvey step 3: one subsection, continuing from the one drafted before it.",
        system=_WRITER,
        user=(
            "You are writing the section \"{heading}\" of the survey \"{topic}\", one subsection at a "
            "time.\n\nThe previous subsection ended with:\n{previous}\n\n"
            "Now write the subsection \"{subtopic}\", continuing naturally from it. Base it on these "
            "papers:\n{papers}\n\n" + _SECTION_RULES
        ),
    ),
    # --- SurveyForge: heuristic outline (paper clusters named by the LLM) -> memory-driven writing ----
    PromptTemplate(
        name="gen.surveyforge.name",
        description="SurveyForge outline: a title for one cluster of papers and its subsection titles.",
        system=_WRITER,
        user=(
            "In the survey \"{topic}\", the following papers form one section:\n{papers}\n\n"
            "On the first line write a short title for this section. Then write at most {max_subsections} "
            "subsection titles that organise these papers, one per line starting with '- '. Write "
            "nothing else."
        ),
    ),
    PromptTemplate(
        name="gen.surveyforge.write",
        description="SurveyForge writing: one section, given a memory of what earlier sections said.",
        system=_WRITER,
        user=(
            "You are writing the survey \"{topic}\". Its outline is:\n{outline}\n\n"
            "Memory of the sections already written (what they covered and cited):\n{memory}\n\n"
            "Write the section \"{section}\"{description}. Do not repeat points the memory lists; refer "
            "back to them where useful. Base it on these papers:\n{papers}\n\n" + _SECTION_RULES
        ),
    ),
    # --- QUAL-SG: LLM-judged topical relevance of one candidate paper ---------------------------------
    PromptTemplate(
        name="gen.qualsg.relevance",
        description="QUAL-SG re-ranking: topical relevance of one candidate paper to the survey, 1-5.",
        system=_JUDGE,
        user=(
            "Survey topic: \"{topic}\"\n\nCandidate paper:\n{paper}\n\n"
            "How relevant is this paper to a survey on this topic? 1 = unrelated, 2 = marginal, "
            "3 = related, 4 = clearly relevant, 5 = central to the topic. Reply with one integer from 1 "
            "to 5 and nothing else."
        ),
    ),
    # --- Fully-LLMGen: no retrieval, references from the model's memory -------------------------------
    PromptTemplate(
        name="gen.llm_only.references",
        description="Fully-LLMGen: papers the model recalls on the topic (its reference list).",
        system=_MEMORY_WRITER,
        user=(
            "List up to {n_references} published research papers that a survey titled \"{topic}\" should "
            "cite. Write one paper per line as '- Exact title of the paper'. Write nothing else."
        ),
    ),
    PromptTemplate(
        name="gen.llm_only.outline",
        description="Fully-LLMGen: outline from the topic alone.",
        system=_MEMORY_WRITER,
        user=(
            "Plan the outline of a survey titled \"{topic}\". Propose at most {max_sections} main sections, "
            "each with at most {max_subsections} subsections. " + _OUTLINE_FORMAT
        ),
    ),
    PromptTemplate(
        name="gen.llm_only.section",
        description="Fully-LLMGen: one section, citing the recalled papers by label.",
        system=_MEMORY_WRITER,
        user=(
            "You are writing the survey \"{topic}\". Its outline is:\n{outline}\n\n"
            "Write the section \"{section}\"{description}. You may cite these papers, which you recalled "
            "earlier:\n{papers}\n\n" + _SECTION_RULES
        ),
    ),
]

for _template in _TEMPLATES:
    if PROMPTS.get(_template.name) != _template:  # re-importing this module is harmless
        register(_template, replace=_template.name in PROMPTS)
