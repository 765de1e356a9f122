"""Values at rest: ``store_var`` records, the save files around them, and what unknown bytes
or files are.

``store_var`` (``dump``/``load`` and their many-record forms), ``containers`` (encrypted
``GDEC`` and compressed ``GCPF`` save files), ``fastlz`` (which FastLZ is live: the compiled
``_cfastlz`` or the pure ``fastlz_pure``), ``wrapping`` (how a file's plaintext is wrapped,
as a value, to write it back the same way), ``guess`` (one value, records or a cut capture,
and for which engine line) and ``detect`` (which releases could have written some bytes).
Every file is written through :mod:`gdvariant._writes`.
"""
