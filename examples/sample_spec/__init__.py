"""The hand-written tables of ``examples/make_sample.py`` and the text of the sample's README.

* :mod:`.records`      -- the record types (``Topic``, ``SurveySpec``, survey nodes);
* :mod:`.topics`, :mod:`.other_topics` -- the six surveyed research areas and twelve others;
* :mod:`.phrases`      -- sentence and title patterns, first and last names;
* :mod:`.papers`       -- the hand-written papers (cited ones and their neighbours);
* :mod:`.surveys`, :mod:`.more_surveys` -- the hand-written ground-truth surveys 0-2 and 41-43;
* :mod:`.conventions`  -- long-section threshold and survey UUIDs; :mod:`.readme` -- the README.

``make_sample.py`` turns them into the sample's JSON files (stdlib only, deterministic).
"""
