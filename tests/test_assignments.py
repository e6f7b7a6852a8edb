"""One ``NAME=VALUE`` rule (surge_dataset.core.vocabulary.parse_assignments) behind every option that takes one:
``--bib-base-url`` (``surge evaluate``'s services and ``surge data fresh``'s hosts, one function), ``--bib-rate-limit``,
``--model``, ``--details``, ``-o``; and one ``[NAME=]PATH`` rule (``split_name``) for ``surge meta-eval`` and
``surge judge-agreement``. Every caller reads the same items alike and refuses the same malformed ones."""

from __future__ import annotations

import pytest

from surge_dataset.core.errors import SettingError
from surge_dataset.core.http import parse_base_urls
from surge_dataset.core.vocabulary import FRESH_HOSTS, ChoiceError, parse_assignments, split_name
from surge_dataset.fresh.sources import host_urls
from surge_dataset.generation.settings import parse_system_options
from surge_dataset.models.identity import model_copies
from surge_dataset.references.chain import parse_assignments as service_values

ITEMS = ["arxiv=http://h:1/", " crossref = http://c ", "openalex=http://o?a=b"]
READ = {"arxiv": "http://h:1/", "crossref": "http://c", "openalex": "http://o?a=b"}


def test_every_caller_reads_the_same_items_alike():
    assert parse_assignments(ITEMS, "--x") == READ
    assert service_values(ITEMS, "bib_rate_limit") == READ
    assert model_copies(ITEMS) == READ
    assert parse_system_options(ITEMS) == READ  # -o: dashes in a key become underscores, too
    assert parse_base_urls(ITEMS, "bib_base_url", ("arxiv", "crossref", "openalex")) == {
        **READ, "arxiv": "http://h:1"}  # a base URL loses its trailing /
    assert host_urls(["arxiv=http://h:1/", "arxiv-src=http://h/src/{id}"]) == {
        "arxiv": "http://h:1", "arxiv-src": "http://h/src/{id}"}


@pytest.mark.parametrize("item", ["openalex", "=http://h", "openalex="])
def test_every_caller_refuses_a_malformed_item_naming_its_option(item):
    callers = {
        "bib_rate_limit": lambda: service_values([item], "bib_rate_limit"),
        "--model": lambda: model_copies([item]),
        "--bib-base-url": lambda: host_urls([item]),
        "bib_base_url": lambda: parse_base_urls([item], "bib_base_url", ("openalex",)),
    }
    for option, call in callers.items():
        with pytest.raises(SettingError, match=rf"^{option} {item!r}: expected [A-Z]+=[A-Z]+"):
            call()
    if item != "openalex=":  # -o takes an empty value (a system option set to "")
        with pytest.raises(SettingError, match=rf"^--option {item!r}: expected KEY=VALUE"):
            parse_system_options([item])
    assert parse_system_options(["max-sections="]) == {"max_sections": ""}


def test_both_base_url_options_check_the_names():
    with pytest.raises(ChoiceError, match="did you mean 'arxiv'"):
        host_urls(["arxv=http://h"])
    with pytest.raises(ChoiceError, match="did you mean 'openalex'"):
        parse_base_urls(["openalx=http://h"], "bib_base_url", ("openalex", "crossref"))
    assert set(host_urls([f"{h}=http://h" for h in FRESH_HOSTS])) == set(FRESH_HOSTS)


def test_an_optional_name_before_a_path(tmp_path):
    odd = tmp_path / "a=b.json"
    odd.write_text("{}")
    assert split_name("gpt=runs/a.json") == ("gpt", "runs/a.json")
    assert split_name("runs/a.json") == (None, "runs/a.json")
    assert split_name(str(odd)) == (None, str(odd))  # a file whose name holds "=" is a path
