"""Test-only servers and builders (not shipped in the wheel); tests and benchmarks import them as ``tests.support``
from the repository root (``python -m benchmarks.<name>``).

* ``local_server.py``: the one base of every server here (127.0.0.1, a free port, a thread, stopped cleanly);
* ``replay.py``: OpenAlex, Semantic Scholar, arXiv and Crossref replaying real recorded answers;
* ``bib_server.py``: the same four services scripted (papers it knows, faults on demand), for what no recording
  has: latency, failures, volume;
* ``arxiv_server.py``: arXiv's query API and e-print endpoint over papers a test describes;
* ``openai_server.py``: a scripted OpenAI-compatible chat server (replies, HTTP errors, hangs);
* ``tarballs.py``: arXiv e-prints (tar.gz, gzipped or plain ``.tex``) built in memory;
* ``parity.py``: the authors' released evaluator run beside ours with the same injected models.

Stand-ins a user needs in their own tests (tiny models, an in-process scripted chat model, the quiz writer and
reader) are public in ``surge_dataset.testing``.
"""
