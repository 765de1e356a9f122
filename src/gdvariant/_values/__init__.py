"""The value model: what a Godot value is in Python, whatever the engine release or the form
(bytes, text, JSON) it travels in.

``base`` (type ids, the record base class, names and handles), ``math`` (vectors, transforms,
Color...), ``collections`` (typed Arrays and lossless Dictionaries), ``packed`` (the packed
arrays), ``godot2`` (Godot 2's Image and InputEvent), ``color_names`` (Godot 4's named
colours) and ``layouts`` (each math type's components in wire order). Nothing here knows an
engine release or a wire format beyond that order.
"""
