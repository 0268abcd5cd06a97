"""The documentation pages say what the code does: every element type of the table in
docs/element-types.md, and README links every page of docs/."""

from pathlib import Path

from tcgen05_lower.element_types import ISA_BITS, MLIR_TO_ISA

ROOT = Path(__file__).resolve().parent.parent


def test_element_types_page_lists_the_table():
    text = (ROOT / "docs" / "element-types.md").read_text()
    for mlir, isa in MLIR_TO_ISA.items():
        assert f"| `{mlir}` | {isa} | {ISA_BITS[isa]} |" in text, mlir


def test_readme_links_every_docs_page():
    readme = (ROOT / "README.md").read_text()
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert f"docs/{page.name}" in readme, page.name
