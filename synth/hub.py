"""``synth push``: a run to a Hugging Face Hub dataset repo, in one commit.

The run is laid out as a Hub repo first (synth.export.repo: parquet per config and split, the card
with its plots, manifest.json), then ``huggingface_hub`` creates the repo if needed and commits
exactly those files, deleting files of an earlier push that this one no longer has (a config that
went away, fewer shards). The token goes to ``HfApi`` and nowhere else: never into a file, a log
line or an error message.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from synth.errors import HubError
from synth.records import Manifest
from synth.rundir import CARD, MANIFEST, RunDir

TOKEN_HELP = "https://huggingface.co/settings/tokens"
OURS = (CARD, MANIFEST, "plots/", "chat/", "eval/", "scored/", "teval_", "tasks/")  # what a push may delete


@dataclass(frozen=True)
class Pushed:
    repo: str
    url: str
    uploaded: list[str]
    deleted: list[str]
    private: bool


def check_repo_id(repo: str) -> str:
    """``OWNER/NAME`` as the Hub accepts it, or a HubError that says how to write it."""
    from huggingface_hub.errors import HFValidationError
    from huggingface_hub.utils import validate_repo_id

    how = (
        "write it as OWNER/NAME, e.g. my-org/mcp-tool-calls: letters, digits, '-', '_' and '.', "
        "not starting or ending with '-' or '.', at most 96 characters"
    )
    if repo.count("/") != 1 or not all(repo.split("/")):
        raise HubError(f"--repo {repo!r} is not a dataset repo id: {how}")
    try:
        validate_repo_id(repo)
    except HFValidationError as exc:
        raise HubError(f"--repo {repo!r} is not a valid dataset repo id ({str(exc).split(':')[0]}); {how}") from None
    return repo


def find_token(token_env: str | None) -> str:
    """The token from ``token_env``; without it, HF_TOKEN or the one ``hf auth login`` saved."""
    if token_env:
        token = os.environ.get(token_env, "").strip()
        if not token:
            raise HubError(
                f"no Hugging Face token: the environment variable {token_env} is not set or empty. "
                f"Create a token with write access at {TOKEN_HELP} and export {token_env}=<token>"
            )
        return token
    from huggingface_hub import get_token

    found = (os.environ.get("HF_TOKEN") or "").strip() or get_token()
    if not found:
        raise HubError(
            "no Hugging Face token: HF_TOKEN is not set and no login is saved. Create a token with write "
            f"access at {TOKEN_HELP}, then export HF_TOKEN=<token> (or run `hf auth login`, or pass "
            "--token-env NAME with the variable that holds it)"
        )
    return found


def _failure(exc: BaseException, repo: str, token: str) -> HubError:
    """A Hub or network exception as a HubError that says what to do, with the token scrubbed."""
    import httpx2
    from huggingface_hub.errors import HfHubHTTPError, OfflineModeIsEnabled, RepositoryNotFoundError

    def clean(text: str) -> str:
        return text.replace(token, "***") if token else text

    if isinstance(exc, OfflineModeIsEnabled):
        return HubError("the Hub is switched off here (HF_HUB_OFFLINE is set); unset it to push")
    if isinstance(exc, HfHubHTTPError):
        status = exc.response.status_code if exc.response is not None else None
        server = clean((exc.server_message or str(exc)).splitlines()[0])[:300]
        if status == 401:
            return HubError(
                f"the Hub refused the token (401 Unauthorized): it is invalid or expired. Create a new "
                f"token with write access at {TOKEN_HELP}"
            )
        if status == 403:
            return HubError(
                f"the token may not write to {repo} (403 Forbidden): use a token with write access to the "
                f"namespace {repo.split('/')[0]} ({TOKEN_HELP}). Hub said: {server}"
            )
        if isinstance(exc, RepositoryNotFoundError) or status == 404:
            return HubError(
                f"the Hub cannot find or create {repo} (404): check the owner name and that the token "
                f"can write to it. Hub said: {server}"
            )
        return HubError(
            f"the Hub answered {status} while pushing to {repo}: {server}. Nothing was committed; try again later"
        )
    if isinstance(exc, (httpx2.TransportError, ConnectionError, TimeoutError, OSError)):
        return HubError(
            f"cannot reach the Hugging Face Hub ({type(exc).__name__}): check the network connection, "
            "proxy (HTTPS_PROXY) or HF_ENDPOINT, then run synth push again; nothing was committed"
        )
    return HubError(f"push to {repo} failed: {type(exc).__name__}: {clean(str(exc))[:300]}")


def push(
    run: Path,
    repo: str,
    *,
    token: str,
    private: bool = False,
    message: str | None = None,
    api_factory: Callable[..., Any] | None = None,
    rebuild: bool = True,
) -> Pushed:
    """Build the Hub layout in ``run`` and commit it to the dataset repo ``repo``.

    ``api_factory(token=...)`` makes the ``HfApi`` (tests pass a recording double). With
    ``rebuild=False`` the files already in ``run`` are pushed as they are.
    """
    from synth.export.repo import export, hub_files

    check_repo_id(repo)
    manifest = RunDir(run).read_manifest(HubError)
    if not isinstance(manifest, Manifest):
        raise HubError(f"{run} holds an unfinished run; finish it (synth generate ... --resume) before pushing it")
    if api_factory is None:
        from huggingface_hub import HfApi

        api_factory = HfApi
    import httpx2
    from huggingface_hub.errors import OfflineModeIsEnabled

    hub_errors = (httpx2.HTTPError, OSError, OfflineModeIsEnabled)  # Hub answers and network trouble
    api = api_factory(token=token)
    try:  # first, so a bad token or no network fails before any building
        url = api.create_repo(repo, repo_type="dataset", private=private, exist_ok=True)
    except hub_errors as exc:
        raise _failure(exc, repo, token) from None
    if rebuild:
        export(run)
    files = hub_files(run)
    if "README.md" not in files or not any(f.endswith(".parquet") for f in files):
        raise HubError(f"{run} has no Hub layout to push; run `synth export {run} --format hf` first")
    try:
        stale = _commit(api, repo, run, files, message or _message(manifest))
    except hub_errors as exc:
        raise _failure(exc, repo, token) from None
    return Pushed(repo=repo, url=str(url), uploaded=files, deleted=stale, private=private)


def _commit(api: Any, repo: str, run: Path, files: list[str], message: str) -> list[str]:
    """One commit: every file of the layout, and the deletion of files an earlier push of synth's left that
    this layout no longer has (returned)."""
    from huggingface_hub import CommitOperationAdd, CommitOperationDelete

    existing = api.list_repo_files(repo, repo_type="dataset")
    stale = sorted(f for f in existing if f not in files and f.startswith(OURS))
    operations: list[CommitOperationAdd | CommitOperationDelete] = [
        CommitOperationAdd(path_in_repo=f, path_or_fileobj=str(run / f)) for f in files
    ]
    operations += [CommitOperationDelete(path_in_repo=f) for f in stale]
    api.create_commit(repo, operations, repo_type="dataset", commit_message=message)
    return stale


def _message(manifest: Manifest) -> str:
    counts = manifest.counts
    return (
        f"synth {manifest.synth_version}: {counts.get('conversations', 0)} "
        f"conversations, seed {manifest.config.get('seed')}"
    )
