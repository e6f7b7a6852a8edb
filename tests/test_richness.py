"""Non-textual richness counts what a person counts on a hand-made survey (the rules of metrics/richness/README.md)."""

from __future__ import annotations

import pytest

from surge_dataset.evaluation import compute
from surge_dataset.scoring.richness import Richness, count_richness

#: A survey written by hand to hold each kind, plus the traps the rules name. Counted by hand, line by line:
#: tables 3 (the pipe table under "Models", the one-column table, the HTML table; the pipe rows inside the code
#: block and the `---` line without a header above are none); figures 4 (the Markdown image, the reference-style
#: image, the <img>, the mermaid diagram; the "Figure 3 shows" caption is none); display equations 5 ($$ on one
#: line, $$ over three lines, \[ \] over three lines, the align environment, the math fence; the inline $x$ is
#: text; the equation environment inside the second $$ block counts with it); code blocks 2 (the python block,
#: the ~~~ block; the mermaid fence is a figure). Words: listed beside each line below.
HAND_MADE = """\
# A hand-made survey

Graph networks pass messages [1], see Figure 3 shows nothing.

## Models

| Model | Aggregation |
| :--- | ---: |
| GCN | mean |

| Only |
|---|

![Message passing](figures/mp.png)

The baseline ![a reference figure][fig2] is inline.

<img src="arch.png" alt="architecture">

Inline $x$ stays text.

$$ h_v = \\sum_u W h_u $$

$$
\\begin{equation}
y = f(x)
\\end{equation}
$$

\\[
z = g(y)
\\]

\\begin{align}
a &= b
\\end{align}

```python
# a comment, not a heading
| not | a |
| --- | --- |
```

~~~
plain code
~~~

```math
E = mc^2
```

```mermaid
graph TD; A-->B
```

<table><tr><td>cell</td></tr></table>

Text after a rule.
---

# References

[1] A Paper | With --- | Pipes
![not counted](ref.png)
"""
# Words, by hand: "A hand-made survey" 3; "Graph networks pass messages see Figure shows nothing" 8 ("[1]," and
# "3" have no letter); "Models" 1; table: "Model Aggregation GCN mean" 4, "Only" 1; "The baseline is inline" 4
# (the image is not a word); "Inline $x$ stays text" 4; "cell" 1 (the tag is not); "Text after a rule" 4.
HAND_WORDS = 3 + 8 + 1 + 4 + 1 + 4 + 4 + 1 + 4


def test_counts_what_a_person_counts_on_a_hand_made_survey():
    assert count_richness(HAND_MADE) == Richness(tables=3, figures=4, equations=5, code_blocks=2, words=HAND_WORDS)


def test_the_metric_reports_each_kind_absolute_and_per_1000_words():
    result = compute("richness", [HAND_MADE], ['{"survey_title": "T", "structure": []}'])
    values, words = result["per_survey"][0], result["counts"][0]["richness_words"]
    assert words == HAND_WORDS == 30
    assert values["richness"] == pytest.approx((3 + 4) * 1000 / 30)  # tables + figures per 1,000 words
    assert (values["richness_tables"], values["richness_figures"], values["richness_equations"],
            values["richness_code_blocks"]) == (3.0, 4.0, 5.0, 2.0)
    assert values["richness_tables_per_1k"] == pytest.approx(100.0)
    assert values["richness_figures_per_1k"] == pytest.approx(4000 / 30)
    assert values["richness_equations_per_1k"] == pytest.approx(5000 / 30)
    assert values["richness_code_blocks_per_1k"] == pytest.approx(2000 / 30)


@pytest.mark.parametrize(("text", "expected"), [
    ("Plain prose with no table at all.\n", Richness(0, 0, 0, 0, 7)),
    # an unclosed fence runs to the end: one code block, and the image inside it is code
    ("Intro text.\n\n```\ncode ![x](y.png)\n", Richness(0, 0, 0, 1, 2)),
    # a longer closing fence closes; a shorter one does not
    ("````\na\n```\nb\n`````\nafter\n", Richness(0, 0, 0, 1, 1)),
    # a bare "References:" line cuts the reference list too; the last References heading wins
    ("# References\n\nText [1].\n\n**References:**\n\n| a | b |\n| - | - |\n", Richness(0, 0, 0, 0, 2)),
    # two tables one after the other are two; a header row alone is none
    ("| a |\n| - |\n\n| b |\n| - |\n\n| c |\n", Richness(2, 0, 0, 0, 3)),
    ("", Richness(0, 0, 0, 0, 0)),
])
def test_edge_cases(text, expected):
    assert count_richness(text) == expected


def test_a_survey_without_words_has_no_richness():
    result = compute("richness", ["# References\n\n[1] A title\n"], ['{"survey_title": "T", "structure": []}'])
    assert set(result["per_survey"][0].values()) == {None}
    assert result["counts"][0]["richness_words"] == 0
    assert "no_words" in [d["code"] for d in result["diagnostics"][0]]
