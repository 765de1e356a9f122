"""Godot's text syntax (``var_to_str`` / ``str_to_var``): ``to_text`` and ``from_text``.

``writer`` (a value as each release prints it), ``parser`` (text read as each release reads
it) and ``godot_sort`` (the engine's own sort, for Dictionary keys). What differs between
releases is :mod:`gdvariant._engines.text_syntax`; floats are :mod:`gdvariant._floats`.
"""
