import pytest

from synth import templates
from synth.errors import TemplateError
from synth.records import ServerSpec


def test_every_template_renders_with_records():
    server = ServerSpec(id="x/y", name="Weather {{ server.secret }}", source="y.json", tools=())
    names = templates.names()
    assert "conversation.system.j2" in names
    for name in names:
        text = templates.render(name, server=server)
        assert text.strip()
    # text from a registry is data: template syntax inside it is not evaluated
    assert "{{ server.secret }}" in templates.render("conversation.system.j2", server=server)


def test_missing_variable_is_a_clear_error():
    with pytest.raises(TemplateError, match="conversation.system.j2"):
        templates.render("conversation.system.j2")
