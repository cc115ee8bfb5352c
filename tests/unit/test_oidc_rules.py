"""Who may use the sales mode after an OpenID Connect sign-in (fail closed)."""

from __future__ import annotations

import pytest

from webui.session.storage import oidc_allowed

RULES = {"allowed_domains": ["example.com", "@corp.example"], "allowed_emails": ["Partner@Other.org"]}


@pytest.mark.parametrize(("info", "ok"), [
    ({"sub": "1", "email": "ann@example.com"}, True),
    ({"sub": "1", "email": "ANN@EXAMPLE.COM", "email_verified": True}, True),
    ({"sub": "1", "email": "bob@corp.example"}, True),
    ({"sub": "1", "email": "partner@other.org"}, True),
    ({"sub": "1", "email": "ann@example.com", "email_verified": False}, False),
    ({"sub": "1", "email": "mallory@gmail.com"}, False),
    ({"sub": "1", "email": "ann@example.com.evil.net"}, False),
    ({"sub": "1", "email": "ann@sub.example.com"}, False),
    ({"email": "ann@example.com"}, False),
    ({"sub": "1"}, False),
])
def test_only_listed_verified_accounts_with_a_subject_are_sales(info, ok):
    assert oidc_allowed(info, RULES) is ok


def test_no_rules_means_nobody():
    assert not oidc_allowed({"sub": "1", "email": "ann@example.com", "email_verified": True}, {})
