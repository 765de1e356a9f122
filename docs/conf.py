"""Sphinx configuration for gdvariant's documentation (``bash tools/build-docs.sh`` builds it).

Sphinx rather than MkDocs: the docstrings are written in reStructuredText (``literal``,
:class:`...` and :func:`...` roles), which autodoc renders as written and mkdocstrings would
show raw. The guides stay Markdown, read through MyST.
"""

from __future__ import annotations

import builtins
import sys
from collections.abc import Iterator
from typing import Any

from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.pycode import ModuleAnalyzer

import gdvariant

project = "gdvariant"
author = "gdvariant contributors"
copyright = "gdvariant contributors, MIT License"  # noqa: A001 (Sphinx's own name)
release = version = gdvariant.__version__

extensions = ["sphinx.ext.autodoc", "myst_parser"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]
root_doc = "index"

# `single backticks` in a docstring mean code, as in Markdown.
default_role = "literal"
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_default_options = {"members": True, "show-inheritance": True}
autoclass_content = "both"
myst_heading_anchors = 3

html_theme = "alabaster"
html_title = f"gdvariant {release}"
html_theme_options = {
    "description": "Godot's Variant serialization from Python",
    "page_width": "1160px",  # room for 100-column code and long signatures
    "sidebar_width": "240px",
}


def _builtin_refs(app: Sphinx, doctree: Any) -> None:
    """Point ``type``, ``int``... in signatures at the builtins, never at an attribute that
    happens to share the name (``InputEvent.type``), which Sphinx's fuzzy search would offer."""
    for ref in doctree.findall(addnodes.pending_xref):
        target = ref.get("reftarget", "")
        in_signature = any(isinstance(p, addnodes.desc_signature) for p in _ancestors(ref))
        if ref.get("refdomain") == "py" and in_signature and hasattr(builtins, target):
            ref["reftarget"] = f"builtins.{target}"
            ref["refspecific"] = False


def _ancestors(node: Any) -> Iterator[Any]:
    while node.parent is not None:
        node = node.parent
        yield node


def _package_refs(app: Sphinx, env: BuildEnvironment, node: Any, contnode: Any) -> Any:
    """Link a short name written in a subpackage (:class:`DecodeError` in ``gdvariant.sync``)
    to the package's own name (``gdvariant.DecodeError``)."""
    target = node.get("reftarget", "")
    if node.get("refdomain") != "py" or target.startswith("gdvariant."):
        return None
    domain = env.get_domain("py")
    return domain.resolve_xref(
        env, node["refdoc"], app.builder, node["reftype"], f"gdvariant.{target}", node, contnode
    )


def _attribute_comments(
    app: Sphinx, what: str, name: str, obj: object, options: object, lines: list[str]
) -> None:
    """Give a re-exported constant the ``#:`` comment it has where it is defined.

    autodoc reads ``#:`` comments from the module named in the directive
    (``gdvariant.DEFAULT_LIMITS``), but the constants are defined in private modules; without
    one it would show the docstring of the value's class (``Limits``).
    """
    if what != "data":
        return
    package, _, attr = name.rpartition(".")
    for modname, module in list(sys.modules.items()):
        inside = modname == package or modname.startswith(package + ".")
        if not inside or getattr(module, attr, None) is not obj:
            continue
        docs = ModuleAnalyzer.for_module(modname).find_attr_docs().get(("", attr))
        if docs:
            lines[:] = docs
            return
    if not isinstance(obj, type) and type(obj).__doc__ == getattr(obj, "__doc__", None):
        lines.clear()  # a plain value (a dict) documented by the directive's own text


def _field_docs(
    app: Sphinx, what: str, name: str, obj: object, options: object, lines: list[str]
) -> None:
    """Drop the docstring a value-type field borrows from its getter's class: the fields of
    ``Vector2``... are ``property(itemgetter(i))``, whose text explains ``itemgetter``."""
    getter = getattr(obj, "fget", None)
    if getter is not None and getattr(obj, "__doc__", None) == type(getter).__doc__:
        lines.clear()


def _public_bases(app: Sphinx, name: str, obj: object, options: object, bases: list[type]) -> None:
    """Show the bases a reader can look up: a private helper class (``_Record``) gives way to
    its own bases (``tuple``), and a lone ``object`` goes (:func:`_drop_empty_bases`)."""
    public: list[type] = []
    pending = list(bases)
    while pending:
        base = pending.pop(0)
        if base.__name__.startswith("_"):
            pending[:0] = base.__bases__
        elif base is not object and base not in public:
            public.append(base)
    bases[:] = public


def _drop_empty_bases(app: Sphinx, doctree: Any) -> None:
    """Remove the "Bases:" line of a class whose only base is ``object``."""
    for paragraph in list(doctree.findall(lambda node: node.tagname == "paragraph")):
        if paragraph.astext().strip() == "Bases:":
            paragraph.parent.remove(paragraph)


def setup(app: Sphinx) -> None:
    app.connect("doctree-read", _builtin_refs)
    app.connect("doctree-read", _drop_empty_bases)
    app.connect("autodoc-process-docstring", _attribute_comments)
    app.connect("autodoc-process-docstring", _field_docs)
    app.connect("autodoc-process-bases", _public_bases)
    app.connect("missing-reference", _package_refs)
