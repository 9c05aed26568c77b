import hashlib

from rest_framework import authentication, exceptions

from .models import ApiKey


class ApiKeyAuthentication(authentication.BaseAuthentication):
    """Bearer key, its SHA-256 looked up on every request (no cache), as DRF's TokenAuthentication does."""

    def authenticate(self, request):
        header = request.META.get("HTTP_AUTHORIZATION", "")
        if not header.startswith("Bearer "):
            return None
        digest = hashlib.sha256(header[7:].encode()).hexdigest()
        key = ApiKey.objects.select_related("tenant").filter(token_hash=digest, revoked_at__isnull=True).first()
        if key is None:
            raise exceptions.AuthenticationFailed("invalid key")
        return (key.tenant, key)
