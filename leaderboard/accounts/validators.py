"""The username rules, one validator for every path that makes a user (the sign-up form, create_api_token,
the agents): a name is part of URLs (/users/<name>/), so it must be one path segment that reads the same
everywhere."""

from __future__ import annotations

import re

from django.core.exceptions import ValidationError

USERNAME_MAX_LENGTH = 40
USERNAME_RULES = (
    f"1 to {USERNAME_MAX_LENGTH} characters: letters, digits, dots, hyphens and underscores, "
    "starting with a letter or a digit (no spaces, slashes or other signs)"
)
_USERNAME = re.compile(rf"[A-Za-z0-9][A-Za-z0-9._-]{{0,{USERNAME_MAX_LENGTH - 1}}}")


def validate_username(value: str) -> None:
    """Raises ValidationError, in words, when `value` breaks the username rules."""
    if _USERNAME.fullmatch(value or ""):
        return
    if not value:
        problem = "A username is needed"
    elif len(value) > USERNAME_MAX_LENGTH:
        problem = f"The username is {len(value)} characters long"
    elif "/" in value:
        problem = f"The username {value!r} has a slash (it would break the address of your page)"
    elif any(c.isspace() for c in value):
        problem = f"The username {value!r} has a space"
    else:
        problem = f"The username {value!r} is not allowed"
    raise ValidationError(f"{problem}. A username has {USERNAME_RULES}.", code="invalid_username")


def apply_username_rules(field) -> None:
    """Makes a form's username field use these rules instead of the model's looser ones (which allow @
    and +): the sign-up form and the admin's user forms."""
    field.validators = [validate_username]
    field.max_length = USERNAME_MAX_LENGTH
    field.widget.attrs["maxlength"] = str(USERNAME_MAX_LENGTH)
    field.help_text = f"Shown in the rankings and in the user's page address: {USERNAME_RULES}."
