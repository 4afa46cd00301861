"""The dataset card comes from huggingface_hub's DatasetCard and a template shipped in the package: its
header is DatasetCardData's, in the order ``datasets`` users know, and survives the Hub's own parser."""

from __future__ import annotations

import tomllib
from fnmatch import fnmatch
from pathlib import Path

import pytest
import yaml
from huggingface_hub import DatasetCard

from synth.config import Settings
from synth.export.card.build import HEADER_ORDER, TEMPLATE, render
from synth.pipeline import generate

ROOT = Path(__file__).parents[1]


@pytest.fixture(scope="module")
def run(tiny_registry: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("card") / "run"
    generate(Settings(servers=tiny_registry, allow_fallback=True, out=out, n=4, seed=5))
    return out


def test_the_template_ships_in_the_package():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert "synth.export.card" in data["packages"]
    rel = TEMPLATE.relative_to(ROOT / "synth" / "export" / "card").as_posix()
    assert any(fnmatch(rel, glob) for glob in data["package-data"]["synth.export.card"])


@pytest.mark.parametrize("name", ['Tools: a "quoted" name', "- looks like a list", "Zürich #1 {x}", "yes"])
def test_the_header_is_card_data_and_reads_back(run: Path, name: str):
    text = render(run, license="cc-by-4.0", pretty_name=name)
    card = DatasetCard(text)
    header = yaml.safe_load(text.split("---\n")[1])
    assert list(header) == HEADER_ORDER and header == card.data.to_dict()
    assert header["pretty_name"] == name and header["license"] == "cc-by-4.0"
    assert str(card) == text and text.startswith("---\n") and f"\n# {name}\n" in text
    assert "{{" not in text and "{%" not in text  # every template variable was filled
