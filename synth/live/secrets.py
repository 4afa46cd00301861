"""What a registry entry may read from synth's environment, and keeping the rest from the servers it starts.

An entry reads only the variables it names: ``$NAME`` or ``${NAME}`` in a stdio ``env`` value or argument,
or an http header or URL (synth.live.client.resolve fills them in when connecting); a stdio server gets its
``env`` plus HOME, PATH and the like. The user's own keys (``KEY_NAMES``, and whatever ``--api-key-env`` or
a role's ``api_key_env`` names) are refused unless allowed by name (``--allow-env NAME``): an entry could
be anyone's, and one that names ``${OPENAI_API_KEY}`` in a header would send the key to its URL.

A started server could still read synth's own environment from ``/proc/<synth's pid>/environ``. ``seal``
closes that: once the model clients hold their keys, the keys' entries are overwritten in the environment
block the process started with (the memory that file shows, to root as well), they leave ``os.environ`` (so
nothing synth starts inherits them), and the process is marked not dumpable (``prctl(PR_SET_DUMPABLE, 0)``),
so other processes of the same user cannot read its memory either. A server running as root could still
read synth's memory through /proc/<pid>/mem: run synth as a user, not as root, to have that closed too.
"""

from __future__ import annotations

import ctypes
import os
import re
import sys
from collections.abc import Iterable, Sequence

from synth.records import Connection, ServerSpec

KEY_NAMES = ("OPENAI_API_KEY", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "SMITHERY_API_KEY")
ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")
_PR_SET_DUMPABLE = 4


def reads(connection: Connection) -> tuple[str, ...]:
    """The environment variables an entry's connection reads (sorted, once each): ``$NAME`` in its env values,
    headers, arguments and URL (synth.live.client.resolve fills them in when connecting)."""
    values = [*connection.env.values(), *connection.headers.values(), *connection.args, connection.url or ""]
    names = {m.group(1) or m.group(2) for value in values for m in ENV_REF.finditer(value)}
    return tuple(sorted(names - {"SANDBOX"}))  # ${SANDBOX} is synth's own: the scenario's folder (synth.live.sandbox)


def guarded(key_envs: Iterable[str | None] = ()) -> frozenset[str]:
    """The names no entry reads without an allow: KEY_NAMES plus the variables the model keys come from."""
    return frozenset(KEY_NAMES) | {name for name in key_envs if name}


def refusal(servers: Sequence[ServerSpec], keys: frozenset[str], allowed: Iterable[str]) -> str | None:
    """The one line that refuses entries reading a key not allowed by name, or None when none does."""
    allow = set(allowed)
    found = [
        (s.id, [v for v in reads(s.connection) if v in keys and v not in allow])
        for s in servers
        if s.connection is not None
    ]
    found = [(sid, names) for sid, names in found if names]
    if not found:
        return None
    said = "; ".join(f"{sid} reads {', '.join(names)}" for sid, names in found[:5])
    more = f" (and {len(found) - 5} more entries)" if len(found) > 5 else ""
    first = found[0][1][0]
    return (
        f"registry entries name your model or Hub keys: {said}{more}. An entry could be anyone's, so nothing was "
        f"started: remove the variable from the entry's env or headers, or, if this server must have it, "
        f"allow it by name with --allow-env {first}"
    )


def seal(keys: Iterable[str], allowed: Iterable[str] = ()) -> None:
    """Keep ``keys`` from anything this process starts from now on: their entries wiped from the environment
    block the process began with (what /proc/<pid>/environ shows, even to root), the process not dumpable, so
    others of the same user cannot read its memory (Linux), and out of ``os.environ`` unless ``allowed`` (an
    entry that names an allowed key reads it from there)."""
    names = [name for name in keys if name in os.environ]
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            _wipe(libc, names)
            libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
        except (OSError, AttributeError, ValueError):  # no libc symbols (a static or exotic build)
            pass
    for name in set(names) - set(allowed):
        os.environ.pop(name, None)


def _wipe(libc: ctypes.CDLL, names: list[str]) -> None:
    """Overwrite, in place, the entries of ``names`` in libc's ``environ`` strings: those set when the process
    started live in the block /proc/<pid>/environ reads, so the kernel shows the wiped bytes from then on."""
    prefixes = [name.encode() + b"=" for name in names]
    environ = ctypes.POINTER(ctypes.c_void_p).in_dll(libc, "environ")
    i = 0
    while prefixes and environ[i]:
        address = environ[i]
        entry = ctypes.string_at(address)
        for prefix in prefixes:
            if entry.startswith(prefix):  # name and value: nothing tells that the key was there
                ctypes.memset(address, ord("x"), len(entry))
        i += 1


# --- literal secrets, refused by ``synth registry import`` before anything is written --------------------

_SECRET_NAME = re.compile(
    r"auth|token|key|secret|passw|pwd|cookie|session|credential|bearer|signature|(?:^|[_-])pat(?:$|[_-])", re.I
)
_TOKEN = re.compile(
    r"""(?<![A-Za-z0-9])(?:
        (?:sk|pk|rk)[-_](?:live_|test_|proj-|ant-)?[A-Za-z0-9_-]{16,}   # OpenAI, Anthropic, Stripe
      | gh[pousr]_[A-Za-z0-9]{20,} | github_pat_[A-Za-z0-9_]{20,}   # GitHub
      | glpat-[A-Za-z0-9_-]{20,}                                    # GitLab
      | xox[abposr]-[A-Za-z0-9-]{10,}                               # Slack
      | AKIA[0-9A-Z]{16} | AIza[0-9A-Za-z_-]{30,}                   # AWS, Google
      | hf_[A-Za-z0-9]{20,}                                         # Hugging Face
      | eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{4,}  # a JWT
    )""",
    re.X,
)
_SCHEME_CREDENTIAL = re.compile(r"^(?:Bearer|Basic|Token|Digest)\s+\S{8,}", re.I)
_URL_PASSWORD = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]*:[^/\s@]+@")
_RANDOM = re.compile(r"[A-Za-z0-9_+/=-]{24,}")
_QUOTED = " (single quotes, so the shell leaves it)"


def literal_secrets(connection: Connection) -> list[str]:
    """Where a connection holds a literal credential, each as "<where>: <what>; <fix>": by the name it is given
    (a header, variable, flag or query key that names a key, token, password or session) and by its shape
    (a known token format, a JWT, a password inside a URL, a long random string); never the value itself.
    ``$NAME`` parts are not literal: synth.live.client reads them from the environment when connecting."""
    found = []
    for key, value in connection.env.items():
        found += _check(f"--env {key}", key, value, f"--env {key}='${{NAME}}'{_QUOTED}")
    for key, value in connection.headers.items():
        found += _check(f"--header {key}", key, value, f"--header {key}:'${{NAME}}'{_QUOTED}")
    args = connection.args
    fix = "the argument as ${NAME} in a single-quoted --stdio ('my-server --api-key ${NAME}')"
    for i, arg in enumerate(args):
        if arg.startswith("-") and "=" in arg:
            flag, value = arg.split("=", 1)
        else:
            before = args[i - 1] if i else ""
            flag, value = (before if before.startswith("-") and "=" not in before else ""), arg
        found += _check(f"argument {flag or i + 1}", flag.lstrip("-"), value, fix)  # never the value itself
    if connection.url:
        found += _url_secrets(connection.url)
    return found


def _check(where: str, name: str, value: str, fix: str) -> list[str]:
    literal = ENV_REF.sub("", value).strip()
    what = _shape(literal)
    if what is None and name and _SECRET_NAME.search(name) and literal and literal == value.strip():
        what = f"a literal value, and {name} names a credential"
    how = "put it in an environment variable NAME and pass"
    return [f"{where} holds {what}: {how} {fix}; synth reads it when connecting"] if what else []


def _shape(value: str) -> str | None:
    if _URL_PASSWORD.search(value):
        return "a password inside a URL"
    if _TOKEN.search(value):
        return "a token (its format is a known key's)"
    if _SCHEME_CREDENTIAL.match(value):
        return "a credential after an auth scheme"
    for run in _RANDOM.findall(value):
        if any(c.islower() for c in run) and any(c.isupper() for c in run) and sum(c.isdigit() for c in run) >= 3:
            return "a long random string, as keys are"
    return None


def _url_secrets(url: str) -> list[str]:
    from urllib.parse import parse_qsl, urlsplit

    fix = f"--url 'https://host/mcp?api_key=${{NAME}}'{_QUOTED}"
    found = _check("--url", "", url.split("?", 1)[0], fix)
    for key, value in parse_qsl(urlsplit(url).query, keep_blank_values=True):
        found += _check(f"--url query {key}", key, value, fix)
    return found
