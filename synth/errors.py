"""The one error tree. The CLI catches SynthError once, prints it and exits non-zero.

    SynthError
    ├── ConfigError      bad flags or settings
    ├── RegistryError    a registry folder that cannot be read at all
    ├── TemplateError    a prompt template that does not render
    ├── BackendError     a model endpoint that fails past its retries
    │   └── BudgetError  --budget-usd is spent: no new paid call
    ├── ParseError       model output that does not parse into a record
    └── HubError         Hugging Face Hub problems

Anything else escaping to the CLI is a bug and keeps its traceback.
"""


class SynthError(Exception):
    """Base of every error synth raises on purpose; the message says how to fix it."""


class ConfigError(SynthError):
    pass


class RegistryError(SynthError):
    pass


class TemplateError(SynthError):
    pass


class BackendError(SynthError):
    pass


class BudgetError(BackendError):
    pass


class ParseError(SynthError):
    pass


class HubError(SynthError):
    pass
