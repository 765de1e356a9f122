"""Bytes <-> values: Godot's binary Variant form (``var_to_bytes`` / ``bytes_to_var``).

``api`` (``dumps``, ``loads``, ``decode``), ``codec`` (a call's options resolved once into a
:class:`~gdvariant._binary.codec.VariantCodec`, the one way to the core), ``core`` (which core
is live), ``pure`` with ``decoder``, ``encoder`` and ``parts`` (the pure-Python core, the
reference), and the compiled core ``_cgdvariant.c`` with the tables it reads (``ctables``).
"""
