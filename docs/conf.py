"""Sphinx configuration of the documentation: `make docs` builds it into docs/_build/html, strictly
(-W: a warning, such as a broken reference or a docstring that does not parse, fails the build)."""

import rummy_env

project = "rummy_env"
release = version = rummy_env.__version__
extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx.ext.viewcode", "myst_parser"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]
html_theme = "furo"
html_title = f"rummy_env {release}"
autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_typehints = "description"
autodoc_inherit_docstrings = False  # gymnasium's and pettingzoo's docstrings are not ours to build
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3
# The rules book's anchors are HTML (<a id="B7"></a>), which MyST does not index; tests/test_rules_book.py
# checks that every rule id resolves.
suppress_warnings = ["myst.xref_missing"]
nitpicky = False
