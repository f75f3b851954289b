"""The environment variables ``host.config.Settings`` reads, with their defaults as the docs
write them: the source the deploy docs' variable table is checked against (and was made
from: ``python -m tests.deploy.settings_doc`` prints its first two columns)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import AliasChoices
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from host.config import Settings

# Written in the table instead of a value computed per machine.
FACTORY_DEFAULTS = {"db": "user data dir"}


def env_names(name: str, field: FieldInfo) -> list[str]:
    """Every variable that sets the field, the preferred one first."""
    alias = field.validation_alias
    if isinstance(alias, AliasChoices):
        return [str(choice) for choice in alias.choices]
    if isinstance(alias, str):
        return [alias]
    prefix = str(Settings.model_config.get("env_prefix", ""))
    return [(prefix + name).upper()]


def shown(value: Any) -> str:
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, Path):
        return str(value)
    return str(value)


def settings_vars() -> list[tuple[str, list[str], str]]:
    """(field name, its variables, its default as written in the docs), in field order."""
    out = []
    for name, field in Settings.model_fields.items():
        if name in FACTORY_DEFAULTS:
            default = FACTORY_DEFAULTS[name]
        else:
            assert field.default is not PydanticUndefined, f"{name} has no default to document"
            default = shown(field.default)
        out.append((name, env_names(name, field), default))
    return out


if __name__ == "__main__":
    for _, names, default in settings_vars():
        print(f"| {' or '.join(f'`{n}`' for n in names)} | `{default}` | |")
