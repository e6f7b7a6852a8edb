"""`surge data fresh`: a new SurGE-style ground-truth split from recent arXiv surveys."""
