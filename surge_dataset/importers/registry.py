"""The registry of ``surge import --format`` names: one reader per format, found by name.

A reader takes a file or folder and yields :class:`~surge_dataset.importers.records.PeerDocument` records, or
``(source, reason)`` for what it has to skip. The built-in ones are registered with :func:`import_format` in
``importers/formats.py``; another package adds a format with one entry point, nothing else::

    [project.entry-points."surge.importers"]
    myformat = "my_package.reader:read_my_format"

The CLI's ``--format`` choices and help, ``docs/importing.md``'s list and the error for an unknown format are
read off :data:`IMPORTERS`; a name two providers declare follows :mod:`surge_dataset.core.registries`.
"""

from __future__ import annotations

from surge_dataset.core.registries import Registry

__all__ = ["ENTRY_POINT_GROUP", "IMPORTERS", "import_format"]

ENTRY_POINT_GROUP = "surge.importers"

#: Format name -> reader (a live mapping: built-ins in help order, then installed and registered ones).
IMPORTERS = Registry("import format", ENTRY_POINT_GROUP, builtin_modules=("surge_dataset.importers.formats",),
                     pick="IMPORTERS.register({name!r}, load({target!r}), replace=True)")

#: ``@import_format("name")`` on a reader makes it a ``--format`` choice.
import_format = IMPORTERS.register
