"""Facts about the benchmark quoted in several places (dataset card, metric modules): kept once here."""

from collections.abc import Iterable
from importlib import metadata as _metadata

PAPER_URL = "https://arxiv.org/abs/2508.15658"
CODEBASE_URL = "https://github.com/oneal2000/SurGE"

SURGE_BIBTEX = """\
@inproceedings{su2026surge,
  title     = {SurGE: A Benchmark and Evaluation Framework for Scientific Survey Generation},
  author    = {Su, Weihang and Xie, Anzhe and Ai, Qingyao and Long, Jianming and Chen, Xuanyi and
               Mao, Jiaxin and Ye, Ziyi and Liu, Yiqun},
  booktitle = {Proceedings of the 49th International ACM SIGIR Conference on Research and
               Development in Information Retrieval (SIGIR '26)},
  year      = {2026},
  doi       = {10.1145/3805712.3808598},
  note      = {arXiv:2508.15658}
}
"""


def installed_versions(names: Iterable[str]) -> dict[str, str]:
    """Installed version of each distribution (``not installed`` when absent): recorded with every result."""
    versions = {}
    for name in names:
        try:
            versions[name] = _metadata.version(name)
        except _metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


#: This installation's surge-bench version: read from the package metadata (``pyproject.toml`` is the one place it
#: is written); ``not installed`` in a source tree that was never installed.
SURGE_BENCH_VERSION = installed_versions(["surge-bench"])["surge-bench"]
