"""Imports Anki packages into a fresh collection with Anki's own library (PyPI `anki`), one
after the other as a learner would (updating notes when the package's are newer), and prints
what the collection holds as JSON: the import logs, the notes with their note type and fields,
the media files with their sizes, the decks. Run by the LoopLearn tests (AnkiExportTests)."""

import json
import os
import sys
import tempfile

from anki.collection import Collection, ImportAnkiPackageRequest
from anki.import_export_pb2 import ImportAnkiPackageOptions, ImportAnkiPackageUpdateCondition

IF_NEWER = ImportAnkiPackageUpdateCondition.IMPORT_ANKI_PACKAGE_UPDATE_CONDITION_IF_NEWER

folder = tempfile.mkdtemp()
collection = Collection(os.path.join(folder, "collection.anki2"))
logs = []
for package in sys.argv[1:]:
    options = ImportAnkiPackageOptions(with_scheduling=False, update_notes=IF_NEWER, update_notetypes=IF_NEWER)
    result = collection.import_anki_package(ImportAnkiPackageRequest(package_path=package, options=options))
    logs.append({"new": len(result.log.new), "updated": len(result.log.updated), "duplicate": len(result.log.duplicate),
                 "conflicting": len(result.log.conflicting), "first_field_match": len(result.log.first_field_match)})
notes = []
for note_id in collection.find_notes(""):
    note = collection.get_note(note_id)
    notes.append({"guid": note.guid, "noteType": note.note_type()["name"], "fields": dict(note.items()),
                  "cards": len(note.card_ids())})
media = {name: os.path.getsize(os.path.join(collection.media.dir(), name)) for name in os.listdir(collection.media.dir())}
decks = sorted(deck.name for deck in collection.decks.all_names_and_ids())
collection.close()
print(json.dumps({"logs": logs, "notes": notes, "media": media, "decks": decks}, ensure_ascii=False))
