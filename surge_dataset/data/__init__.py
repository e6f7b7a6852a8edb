"""The SurGE data: the authors' official JSON files read and checked, built into a Hugging Face dataset folder
(Parquet, card, configs) with a memory-mapped corpus index, exported back losslessly, rendered as generated
surveys, converted from SurveyGen; the survey filters and a fresh split's manifest.
"""
