"""synth.toml: the example in docs/models.md parses; mistakes get an error naming the file and the fix."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from synth.config import Settings, read_toml
from synth.errors import ConfigError

README = Path(__file__).parents[1] / "docs" / "models.md"


def test_the_readme_example_parses_and_gives_per_role_models(tmp_path):
    example = re.search(r"```toml\n(.*?)```", README.read_text(), re.S).group(1)
    (tmp_path / "synth.toml").write_text(example)
    fields = read_toml(tmp_path / "synth.toml")
    settings = Settings(servers=tmp_path, out=tmp_path, backend="openai", **fields)
    models = settings.models()
    assert models["user"] == "gpt-4.1-nano" and models["executor"] == "gpt-4.1-mini"
    assert settings.concurrency == 32 and settings.prices["my-local-model"] == (0.0, 0.0)
    assert settings.prices["gpt-4o-mini"]  # the built-in table is kept


@pytest.mark.parametrize(
    "text, says",
    [
        ("[llm\nmodel = 1", "cannot be read as TOML"),
        ("[llms]\nmodel = 'x'", "unknown sections"),
        ("[roles.planer]\nmodel = 'x'", "unknown roles"),
        ("[llm]\nconcurrency = 0", "concurrency"),
    ],
)
def test_mistakes_name_the_file_and_what_to_fix(tmp_path, text, says):
    path = tmp_path / "synth.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=re.escape(says)) as err:
        read_toml(path)
    assert str(path) in str(err.value)
