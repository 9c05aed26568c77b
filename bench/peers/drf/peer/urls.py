from django.http import HttpResponse
from django.urls import include, path
from rest_framework.routers import DefaultRouter

from .api import TenantViewSet

router = DefaultRouter()
router.register("tenants", TenantViewSet, basename="tenant")
urlpatterns = [path("api/", include(router.urls)), path("ready", lambda request: HttpResponse("ok"))]
