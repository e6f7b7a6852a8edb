"""Pure metric functions: one module per family of metrics over (parsed survey, GT survey, injected models) ->
numbers and diagnostics; no file I/O and no model loading (the models come in as small interfaces).
"""
