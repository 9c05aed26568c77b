"""Creates the peer's tables, an agency with 5 clients and a key; prints the key."""
import hashlib
import os
import secrets

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "peer.settings")
import django  # noqa: E402

django.setup()
from django.core.management import call_command  # noqa: E402

from peer.models import ApiKey, Tenant  # noqa: E402

call_command("migrate", run_syncdb=True, verbosity=0)
agency = Tenant.objects.create(id="ten_agency", name="Bench Agency", plan="agency", max_client_tenants=10_000_000)
for i in range(5):
    Tenant.objects.create(id=f"ten_client{i}", name=f"Bench client {i}", parent=agency)
token = "tgp_" + secrets.token_urlsafe(32)
ApiKey.objects.create(id="key_bench", tenant=agency, token_hash=hashlib.sha256(token.encode()).hexdigest())
print(token)
