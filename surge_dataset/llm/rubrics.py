"""The per-level rubrics of the SQS and CQS judge prompts (0-5), in our own words.

The released SurGE evaluator, which produced the published Table 4, describes every score level to its judge
(SQS: three criteria per level; CQS: five criteria per level and an example passage per level), while a
short scale ("0 = completely different ... 5 = almost identical") leaves the judge to guess where one level
ends. A judge reading a short scale gives other numbers, so the published SQS/CQS and their human alignment
(Table 2) cannot be compared with ours unless every level states the same criteria. Each description below
covers every criterion the released rubric names at that level, written afresh (no sentence of the released
prompts is reused; ``tests/test_judge_rubrics.py`` checks that no run of six words is shared), and the CQS
examples are ours, about an invented topic. ``docs/evaluation/judging.md`` maps each level's released
criteria to these texts.

Criteria, as the keys of :data:`SQS_CRITERIA` and :data:`CQS_CRITERIA` name them; each level's text states
them in this order.
"""

from __future__ import annotations

__all__ = ["CQS_CRITERIA", "CQS_EXAMPLES", "CQS_LEVELS", "SQS_CRITERIA", "SQS_LEVELS", "cqs_rubric", "sqs_rubric"]

#: What every SQS level speaks to: shared key terms, meaning, and arrangement/phrasing of the headings.
SQS_CRITERIA = ("key terms", "meaning", "structure and phrasing")

SQS_LEVELS: dict[int, tuple[str, str]] = {
    0: ("no resemblance",
        "The outlines share hardly any vocabulary; their headings are about unrelated things; neither the "
        "arrangement of the sections nor the way the headings are worded has anything in common."),
    1: ("slight resemblance",
        "A handful of words recur, but none of them is a central term of the topic; the subjects touch each "
        "other loosely yet differ for the most part; the arrangement and the wording of the headings differ "
        "markedly."),
    2: ("partial resemblance",
        "Some central terms appear in both while many others do not; both address one broad subject, though "
        "they may stress different aspects of it; arrangement and wording differ, yet a connection between "
        "them can still be seen."),
    3: ("clear resemblance",
        "A good number of central terms appear in both; what the headings mean mostly agrees, with small "
        "departures; the arrangement is partly alike, and some words have been swapped for others."),
    4: ("strong resemblance",
        "The majority of central terms agree; the headings mean almost exactly the same thing; wording and "
        "arrangement are close, apart from light rephrasing."),
    5: ("near match",
        "Practically every central term agrees word for word; everything the reference headings mean is "
        "kept; wording and arrangement are the same, or depart only in negligible details."),
}

#: What every CQS level speaks to, in the released rubric's order.
CQS_CRITERIA = ("fluency and coherence", "logical clarity", "redundancy", "clarity of description", "errors")

CQS_LEVELS: dict[int, tuple[str, str]] = {
    5: ("excellent",
        "Reads with ease: sentences link smoothly and the flow feels natural. The reasoning advances in a "
        "clear, orderly way that a reader follows without effort. Nothing is said twice; every sentence adds "
        "something. Each idea is described precisely, leaving no room for two readings. There are no "
        "mistakes of spelling, grammar or fact."),
    4: ("good",
        "Reads easily on the whole, with a transition or two that feels clumsy. The reasoning is clear, "
        "though a small inconsistency may slip in. A little repetition occurs. Most descriptions are clear, "
        "with the odd ambiguous point. Spelling or grammar slips are rare."),
    3: ("average",
        "Can be understood, but clumsy wording is noticeable. The line of reasoning is uneven and some points "
        "sit in the wrong place. Repetition is present and slightly hinders reading. Some descriptions stay "
        "vague or are hard to pin down. Several spelling or grammar mistakes occur, without making the text "
        "unreadable."),
    2: ("poor",
        "Hard going: the sentences are awkwardly built and do not flow. Contradictions or gaps in the "
        "reasoning leave the argument unclear. Phrases repeat until the passage becomes tiresome. "
        "Descriptions are so vague that the main points are hard to grasp. Grammar and spelling mistakes are "
        "many."),
    1: ("very poor",
        "Fragmented to the point of being hard to read. There is hardly any line of reasoning, and the topic "
        "jumps without warning. Sentences repeat one another and add nothing. Descriptions confuse the "
        "reader or say almost nothing. Spelling and grammar mistakes are everywhere."),
    0: ("incoherent",
        "Makes no sense or cannot be read at all. No reasoning and no connection between its parts can be "
        "found. Words pile up or repeat without forming statements. Its errors are so severe that no meaning "
        "can be recovered."),
}

#: One short passage per CQS level, our own, on an invented topic (forecasting glacier melt from sensors).
CQS_EXAMPLES: dict[int, str] = {
    5: "Sensor networks on glaciers report surface temperature and meltwater flow every hour. Forecasting models "
       "combine these readings with weather predictions to estimate the runoff of the coming week. Because "
       "stations fail in harsh winters, recent methods learn to fill gaps from neighbouring sensors, which keeps "
       "forecasts usable when coverage drops.",
    4: "Glacier sensor networks measures temperature and meltwater flow each hour. Forecasting models use these "
       "readings and also weather data, and they predict the runoff for next week. Stations fail in winter, so "
       "newer methods fill the gaps using nearby sensors and the forecasts keep working.",
    3: "Glaciers have sensors that measure things like temperature, flow and others. Forecasting uses the data and "
       "the weather to predict runoff, which is useful for forecasting. Stations fail sometimes in winter, this is "
       "a problem. Their are methods for it that use other sensors.",
    2: "Glacier sensors is used for measure. Sensors measure temperature. Sensors measure flow. The forecast use "
       "sensors and the forecast use weather. Winter stations fails. Methods use sensors for the stations, sensors "
       "is important for forecast and forecast is important.",
    1: "Glacier sensor. Temperature flow hourly. Forecast weather runof. Winter fail station. Method nearby. "
       "Sensors sensors good. Runoff week forecst big.",
    0: "Melt sensor glacier glacier the of runof winter winter ice ice station forecst forecst nearby of the.",
}


def sqs_rubric() -> str:
    """The SQS scale as the prompt states it: one line per level, 0 first."""
    return "\n".join(f"{level} ({name}): {text}" for level, (name, text) in sorted(SQS_LEVELS.items()))


def cqs_rubric() -> str:
    """The CQS scale as the prompt states it: per level, 5 first, its description and its example passage."""
    blocks = [f"{level} ({name}): {CQS_LEVELS[level][1]}\n   Illustration of a {level}: \"{CQS_EXAMPLES[level]}\""
              for level, (name, _) in sorted(CQS_LEVELS.items(), reverse=True)]
    return "\n\n".join(blocks)
