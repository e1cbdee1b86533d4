"""The pages' forms. They check what a form can (a choice, a file's encoding); the services decide the rest
(limits, sizes, what each device allows) and their refusals are shown on the form in their own words."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm

from leaderboard.accounts.validators import apply_username_rules
from leaderboard.problems.selectors import problem_list
from leaderboard.submissions.languages import EVIDENCE, language_of
from leaderboard.submissions.models import DeviceKind, Language, Mode


class SubmitForm(forms.Form):
    problem = forms.ChoiceField()
    language = forms.ChoiceField(choices=Language.choices, initial=Language.PYTORCH)
    device_kind = forms.ChoiceField(label="Device kind", choices=DeviceKind.choices, initial=DeviceKind.CPU)
    mode = forms.ChoiceField(choices=Mode.choices, initial=Mode.TEST, widget=forms.RadioSelect)
    source = forms.CharField(
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 18, "spellcheck": "false", "class": "code-input"}),
        help_text="A Python module that defines custom_kernel(data).",
    )
    upload = forms.FileField(required=False, label="or upload a file", help_text="Replaces the pasted text.")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["problem"].choices = [(p.name, f"{p.title} ({p.name})") for p in problem_list()]

    def clean(self):
        cleaned = super().clean()
        # A browser sends a textarea's lines ending in CRLF (the HTML standard): the source is stored as the
        # file it came from, with LF, so that its hash matches the file's.
        cleaned["source"] = (cleaned.get("source") or "").replace("\r\n", "\n")
        upload = cleaned.get("upload")
        if upload:
            limit = settings.SUBMISSION_MAX_SOURCE_BYTES
            if upload.size > limit:
                raise forms.ValidationError(
                    f"The file is {upload.size / 1024:.1f} KiB; the limit is {limit / 1024:.0f} KiB.",
                    code="too_large",
                )
            try:
                cleaned["source"] = upload.read().decode("utf-8")
            except UnicodeDecodeError:
                raise forms.ValidationError(
                    f"{upload.name} is not UTF-8 text; upload the Python source file itself."
                ) from None
        if not (cleaned.get("source") or "").strip():
            raise forms.ValidationError(
                "Paste your source or upload a file: it should define custom_kernel(data)."
            )
        # The language is read from the source as the command line reads it (languages.py), so that a
        # Triton kernel is never recorded as PyTorch because the select was left alone.
        chosen, written = cleaned.get("language"), language_of(cleaned["source"])
        if chosen and chosen != written:
            self.add_error(
                "language",
                f"This source {EVIDENCE[written]}, so its language is {Language(written).label}, not "
                f"{Language(chosen).label}: choose {Language(written).label}.",
            )
        return cleaned


class SignUpForm(UserCreationForm):
    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "email")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["email"].help_text = "Optional: where a password reset link goes. Never shown to anyone."
        # One validator for every path that makes a user (accounts/validators.py).
        apply_username_rules(self.fields["username"])


class TokenForm(forms.Form):
    name = forms.CharField(
        max_length=100, required=False, help_text="To tell your tokens apart, e.g. the machine it is for."
    )


class EmailForm(forms.Form):
    """The account's email address, for password resets; changing it asks for the password, so that a
    session left open cannot redirect the account's resets elsewhere."""

    email = forms.EmailField(
        required=False, help_text="Where a password reset link goes. Never shown to anyone. Empty: nowhere."
    )
    password = forms.CharField(label="Your password", strip=False, widget=forms.PasswordInput)

    def __init__(self, *args, user, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_password(self) -> str:
        password = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise forms.ValidationError("That is not your password.")
        return password
