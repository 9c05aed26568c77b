import secrets

from django.db import transaction
from rest_framework import exceptions, serializers, viewsets

from .models import Tenant


class TenantSerializer(serializers.ModelSerializer):
    plan = serializers.ChoiceField(choices=["free", "pro", "business"], default="free")

    class Meta:
        model = Tenant
        fields = ["id", "name", "plan", "parent", "status", "created_at", "updated_at"]
        read_only_fields = ["id", "parent", "status", "created_at", "updated_at"]


class TenantViewSet(viewsets.ModelViewSet):
    serializer_class = TenantSerializer
    http_method_names = ["get", "post"]

    def get_queryset(self):
        return Tenant.objects.filter(parent=self.request.user, status="active").order_by("created_at", "id")

    def perform_create(self, serializer):
        # The plan limit, checked under the parent's row lock so concurrent creates cannot pass it together.
        with transaction.atomic():
            parent = Tenant.objects.select_for_update().get(pk=self.request.user.pk)
            if parent.clients.filter(status="active").count() >= parent.max_client_tenants:
                raise exceptions.PermissionDenied("client limit reached")
            serializer.save(id="ten_" + secrets.token_hex(12), parent=parent)
