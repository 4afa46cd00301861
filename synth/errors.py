"""The one error tree. The CLI catches SynthError once, prints it and exits non-zero.

    SynthError
    ├── ConfigError      bad flags or settings
    ├── RunFolderError   the run folder is being written by another run, holds another run, or is unfinished
    ├── RegistryError    a registry folder that cannot be read at all
    ├── TemplateError    a prompt template that does not render
    ├── TableError       a data file of the simulator (synth/simulator/data) missing, not JSON, or off its shape
    ├── BackendError     a model endpoint that fails past its retries
    │   ├── BudgetError  --budget-usd is spent: no new paid call
    │   ├── CutAnswer    an answer cut short (finish_reason length, content_filter) on every attempt: the item fails
    │   └── EndpointDown the endpoint cannot answer any request (unreachable, gone mid-run, refusing the key,
    │                    not knowing the model): the run stops at once
    ├── ParseError       model output that does not parse into a record
    └── HubError         Hugging Face Hub problems

Anything else escaping to the CLI is a bug and keeps its traceback. ``Stopped`` (SIGTERM, SIGHUP) is no
error: it is a ``KeyboardInterrupt``, so a run stops on it as on Ctrl-C.

Exit codes (``synth`` commands; docs/exit-codes.md lists them too):

    0  done
    1  the command ran but its result is not usable: nothing accepted, the rejected share is
       above --max-reject, most servers of a live run unreachable, lint found errors, review
       decisions refused
    2  bad flags, settings or input files (ConfigError, RegistryError, TemplateError, ...)
    3  the run folder is busy (another synth process is writing it), holds a different run, or
       holds an unfinished run that must be resumed first (RunFolderError)
    4  the model endpoint failed: unreachable, refusing the key, or failing past its retries (BackendError)
  129  stopped by SIGHUP (the terminal went away); 130 interrupted (Ctrl-C); 143 stopped by SIGTERM (kill,
       systemd, Docker, Kubernetes, Ray): each marks the run stopped, and --resume finishes it
"""

EXIT_OK, EXIT_RESULT, EXIT_USAGE, EXIT_RUN_FOLDER, EXIT_BACKEND = 0, 1, 2, 3, 4


class SynthError(Exception):
    """Base of every error synth raises on purpose; the message says how to fix it."""

    exit_code = EXIT_USAGE


class ConfigError(SynthError):
    pass


class RunFolderError(SynthError):
    exit_code = EXIT_RUN_FOLDER


class RegistryError(SynthError):
    pass


class TemplateError(SynthError):
    pass


class TableError(SynthError):
    """A data file of the simulator that is missing, is not JSON, or holds an entry of the wrong shape."""


class BackendError(SynthError):
    exit_code = EXIT_BACKEND


class BudgetError(BackendError):
    pass


class CutAnswer(BackendError):
    """The model's answer was cut short (``finish_reason`` length or content_filter) on every attempt:
    the item that asked fails with reason ``cut_answer``; a cut answer is never data."""


class EndpointDown(BackendError):
    """The endpoint cannot answer any request: connections failed several times in a row (before any
    request got through, or for seconds after it had answered), or it refused the key (401/403) or does
    not know the model (404). Nothing later will fare better, so the run stops instead of failing every
    item slowly."""


class ParseError(SynthError):
    pass


class HubError(SynthError):
    pass


class LiveError(Exception):
    """A server could not be reached or did not answer: one line a person can act on."""

    def __init__(self, server: str, what: str, hint: str, reason: str = "live_error"):
        super().__init__(f"{server}: {what} ({hint})")
        self.server, self.what, self.hint, self.reason = server, what, hint, reason


class Stopped(KeyboardInterrupt):
    """SIGTERM or SIGHUP: the process was told to stop. A ``KeyboardInterrupt``, so whatever cleans up after
    Ctrl-C cleans up after it too; ``why`` says which signal, ``exit_code`` is 128 + its number (the shell's)."""

    def __init__(self, signum: int):
        import signal

        name = signal.Signals(signum).name
        super().__init__(name)
        self.why = f"stopped ({name})"
        self.exit_code = 128 + signum
