"""Facts about the benchmark quoted in several places (dataset card, metric modules): kept once here."""

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
