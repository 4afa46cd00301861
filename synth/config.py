"""Settings: built once by the CLI (or a caller) and passed down, never read from globals."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

from synth.errors import ConfigError


class Settings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    servers: Path
    out: Path
    n: int = Field(500, ge=1, description="conversations to aim for in total")
    seed: int = 0
    split: tuple[float, float, float] = (0.8, 0.1, 0.1)
    backend: str = "offline"
    max_tools: int = Field(24, ge=1, description="tools offered per conversation (the used ones always are)")

    @field_validator("split")
    @classmethod
    def _split_sums_to_one(cls, v: tuple[float, float, float]) -> tuple[float, float, float]:
        if any(x < 0 for x in v) or abs(sum(v) - 1.0) > 1e-6:
            raise ValueError("split must be three non-negative shares that add up to 1, e.g. 0.8,0.1,0.1")
        return v


def parse_split(text: str) -> tuple[float, float, float]:
    """``"0.8,0.1,0.1"`` -> (0.8, 0.1, 0.1), with an error that says how to write it."""
    try:
        parts = tuple(float(x) for x in text.split(","))
    except ValueError:
        raise ConfigError(f"--split {text!r} is not three numbers; write it as 0.8,0.1,0.1") from None
    if len(parts) != 3 or any(x < 0 for x in parts) or abs(sum(parts) - 1.0) > 1e-6:
        raise ConfigError(f"--split {text!r} must be three non-negative shares adding up to 1, e.g. 0.8,0.1,0.1")
    return parts  # type: ignore[return-value]
