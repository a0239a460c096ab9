"""`engram settings`: every settings group, the shared one first, then each capability's, under a
heading each; a field's variables, its value in this process and its description (secrets masked)."""

from __future__ import annotations

from engram.consolidation.settings import ConsolidationSettings
from engram.conversations.settings import ConversationSettings
from engram.core.config import Settings, SettingsGroup
from engram.core.config import environment_variables as group_variables
from engram.documents.settings import DocumentSettings
from engram.erasure.settings import ErasureSettings
from engram.extraction.settings import ExtractionSettings
from engram.feedback.settings import FeedbackSettings
from engram.oauth.settings import OAuthSettings
from engram.portability.settings import PortabilitySettings
from engram.recall.settings import RecallSettings
from engram.tenancy.settings import TenancySettings

# Every group the code reads, in the order the listing prints them. A capability that declares its own
# settings (engram/<cap>/settings.py) adds its group here; tests/unit/test_settings.py fails otherwise.
GROUPS: tuple[type[SettingsGroup], ...] = (
    Settings,
    ConsolidationSettings,
    ConversationSettings,
    DocumentSettings,
    ErasureSettings,
    ExtractionSettings,
    FeedbackSettings,
    OAuthSettings,
    PortabilitySettings,
    RecallSettings,
    TenancySettings,
)


def environment_variables() -> dict[str, str]:
    """Each variable any group reads -> its field."""
    names: dict[str, str] = {}
    for group in GROUPS:
        names |= group_variables(group)
    return names


def listing() -> str:
    """The groups as this process sees them: a `# <module>.<class>` heading, then two lines a field."""
    lines: list[str] = []
    for group in GROUPS:
        current = group()
        variables: dict[str, list[str]] = {}
        for variable, field in group_variables(group).items():
            variables.setdefault(field, []).append(variable)
        lines.append(f"# {group.__module__}.{group.__qualname__}")
        for field, info in group.model_fields.items():
            lines.append(f"{' | '.join(variables[field])} = {getattr(current, field)!s}\n    {info.description}")
    return "\n".join(lines)
