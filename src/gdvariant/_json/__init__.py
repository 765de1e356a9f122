"""Godot values as JSON text: ``to_json`` and ``from_json`` (``api``), in two dialects.

The tagged form, gdvariant's lossless one: ``tagged`` (its tables), ``tagged_write`` and
``tagged_read``; its JSON Schema ships as ``gdvariant/schemas/tagged-json.schema.json``. Godot
4.4+'s own ``JSON.from_native`` form: ``godot`` (both ways, and its stringify) and
``godot_parse`` (Godot's lenient JSON reader).
"""
