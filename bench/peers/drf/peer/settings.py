"""The Django REST Framework peer of `npm run bench peer`: the same tenants API as Tagport's, written the way a
Django team would (ModelViewSet, serializer, page-number pagination, a key looked up per request)."""
import os
from urllib.parse import urlparse

_db = urlparse(os.environ["PEER_DATABASE_URL"])
SECRET_KEY = "bench-peer-only"
DEBUG = False
ALLOWED_HOSTS = ["*"]
USE_TZ = True
INSTALLED_APPS = ["django.contrib.contenttypes", "rest_framework", "peer"]
MIDDLEWARE = ["django.middleware.common.CommonMiddleware"]
ROOT_URLCONF = "peer.urls"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": _db.path.lstrip("/"),
        "USER": _db.username or "",
        "PASSWORD": _db.password or "",
        "HOST": _db.hostname,
        "PORT": _db.port,
        # Persistent connections, as a production deployment configures them.
        "CONN_MAX_AGE": 600,
    }
}
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["peer.auth.ApiKeyAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 20,
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "UNAUTHENTICATED_USER": None,
}
TIME_ZONE = "UTC"
