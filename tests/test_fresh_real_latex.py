"""The fresh pipeline's LaTeX reader on the real sources of four published reviews (tests/fixtures/latex/, CC-BY-4.0):
every count below was made by hand, as that folder's README says, and the reader must give the same.

Each source is read the way ``surge data fresh`` reads an arXiv e-print: packed into a gzipped tar and given to
``read_eprint``; the counts of the manifest (cited keys by where their arXiv id was read) come from
``pipeline.id_origins``.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from surge_dataset.core.normalise import normalise_title
from surge_dataset.core.vocabulary import BBL, BIB
from surge_dataset.fresh.bibliography import parse_bbl, parse_bib
from surge_dataset.fresh.latex import read_eprint
from surge_dataset.fresh.pipeline import id_origins
from tests.support.tarballs import tar_gz

LATEX = Path(__file__).parent / "fixtures" / "latex"


def archive(name: str, **extra: Path) -> bytes:
    """The source folder ``name`` as an e-print (path -> bytes), with ``extra`` files added."""
    root = LATEX / name
    files = {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
             if p.is_file() and "derived" not in p.parts}
    files.update({path: source.read_bytes() for path, source in extra.items()})
    return tar_gz(files)


#: name -> (headings by level, cited keys, entries, titled entries, arXiv ids, cited keys by id origin, kind, file)
HAND_COUNTS = {
    "hsf-packaging-2016": ({"section": 7, "subsection": 16}, 16, 16, 0, 0,
                           {"id_in_bbl": 0, "id_in_bib": 0, "no_id": 16}, BBL, "HSF-TN-2016-03.tex"),
    "hsf-community-2022": ({"section": 3}, 23, 23, 23, 0, {"id_in_bbl": 0, "id_in_bib": 0, "no_id": 23}, BIB,
                           "refs.bib"),
    "hllhc-ctcs-2020": ({"section": 6, "subsection": 23, "subsubsection": 10, "paragraph": 18}, 136, 140, 137, 32,
                        {"id_in_bbl": 0, "id_in_bib": 32, "no_id": 104}, BIB, "ctcs.bib"),
    "hsf-analysis-facilities-2024": ({"section": 10, "subsection": 23, "subsubsection": 9}, 44, 57, 57, 3,
                                     {"id_in_bbl": 0, "id_in_bib": 3, "no_id": 41}, BIB, "latex/whitepaper.bib"),
}


@pytest.mark.parametrize("name", list(HAND_COUNTS))
def test_the_reader_gives_the_hand_counts_of_each_real_source(name):
    levels, cited, entries, titled, ids, origins, kind, file = HAND_COUNTS[name]
    source = read_eprint(archive(name), name=name)
    assert Counter(node.level for node in source.all_nodes()) == Counter(levels)
    keys = source.all_cite_keys()
    assert len(keys) == cited
    assert (source.bibliography_entries, len(source.bibliography), len(source.bibliography_ids)) == (entries, titled, ids)
    assert (source.bibliography_kind, source.bibliography_file) == (kind, file)
    assert {k: v for k, v in id_origins(source, keys).items() if k != "note_titles"} == origins
    assert source.bibliography_note_titles == {}


def test_a_percent_in_a_bib_url_or_a_comment_inside_an_entry_loses_no_entry():
    """ctcs.bib (hllhc-ctcs-2020): ``url = {https://doi.org/10.1088%2F...}`` is no comment, ``%used also in ...`` after
    an entry's key is one; before the fix the reader stripped both as LaTeX comments and lost 7 titles."""
    source = read_eprint(archive("hllhc-ctcs-2020"), name="ctcs")
    assert source.bibliography["Blomer_2011"] == ("Distributing LHC application software and conditions databases "
                                                  "using the CernVM file system")
    assert source.bibliography["Alves:2017she"] == "A Roadmap for HEP Software and Computing R&D for the 2020s"
    assert source.bibliography_ids["Alves:2017she"] == "1712.06982"
    assert source.bibliography["LHCb01"] == "Adopting new technologies in the LHCb Gauss simulation framework"


def test_an_ieeetr_bbl_gives_every_title_of_its_bib_and_takes_the_ids_it_drops_from_the_bib_by_key():
    """The archive of hllhc-ctcs-2020 with the ``.bbl`` the ``ieeetr`` style writes (derived/, README): ``ieeetr``
    prints a ``note`` as a trailing ``\\newblock`` (12 entries) and drops ``eprint``. Before the fix: 12 of the 136
    titles were notes ("254 p", "Talk given at CHEP2019, ...") and 3 of the 32 arXiv ids were read."""
    bbl = LATEX / "hllhc-ctcs-2020" / "derived" / "ctcs-ieeetr.bbl"
    source = read_eprint(archive("hllhc-ctcs-2020", **{"ctcs.bbl": bbl}), name="ctcs+ieeetr")
    keys = source.all_cite_keys()
    assert (source.bibliography_kind, source.bibliography_file, source.bibliography_entries) == (BBL, "ctcs.bbl", 136)
    bib = parse_bib(re.sub(r"(?m)(?:(?<=^)|(?<=[\s,]))%[^\n]*", "", (LATEX / "hllhc-ctcs-2020" / "ctcs.bib").read_text()))
    assert len(source.bibliography) == 133
    assert {k: normalise_title(t) for k, t in source.bibliography.items()} == {
        k: normalise_title(bib.titles[k]) for k in source.bibliography}
    assert source.bibliography["Ellis:2691414"] == ("Physics Briefing Book: Input for the European Strategy for "
                                                    "Particle Physics Update 2020")
    assert len(source.bibliography_ids) == 32
    assert {k: v for k, v in id_origins(source, keys).items() if k != "note_titles"} == {
        "id_in_bbl": 3, "id_in_bib": 29, "no_id": 104}
    assert sorted(k for k, v in source.bibliography_id_sources.items() if v == BBL) == [
        "Ellis:2691414", "Ref17", "Ref18"]


def test_the_derived_bbl_holds_the_shapes_it_stands_for():
    """The trailing-note shape is in the file itself (not a property of the reader)."""
    text = (LATEX / "hllhc-ctcs-2020" / "derived" / "ctcs-ieeetr.bbl").read_text()
    assert len(re.findall(r"\\bibitem\{", text)) == 136 and "eprint" not in text
    assert "``{Physics Briefing Book:\n  Input for the European Strategy for Particle Physics Update 2020},'' Tech.\n" \
        "  Rep. arXiv:1910.11775, Geneva, Oct 2019.\n\\newblock 254 p.\n" in text
    parsed = parse_bbl(text)
    assert parsed.titles["collaboration:2714892"] == "The Phase-2 Upgrade of the CMS Level-1 Trigger"
