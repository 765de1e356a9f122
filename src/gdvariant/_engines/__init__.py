"""Every difference between engine releases, as data: the codecs read these tables and never
ask "which version is this?".

``profiles`` (one :class:`~gdvariant.Profile` per release: type ids, header features, writing
rules), ``element_rules`` (what a typed container does with an element of another type),
``key_rules`` (which Dictionary keys an engine holds as one), ``reals`` (how a single or double
build holds the reals it reads) and ``text_syntax`` (each release's spelling of the text
form, and the type names JSON and ``inspect`` show).
"""
