from django.db import models


class Tenant(models.Model):
    id = models.CharField(primary_key=True, max_length=40)
    name = models.CharField(max_length=200)
    plan = models.CharField(max_length=40, default="free")
    parent = models.ForeignKey("self", null=True, on_delete=models.PROTECT, related_name="clients")
    status = models.CharField(max_length=20, default="active")
    max_client_tenants = models.IntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["parent", "status", "created_at", "id"])]

    # The authenticated principal is the key's tenant (request.user), as in Tagport.
    is_authenticated = True


class ApiKey(models.Model):
    id = models.CharField(primary_key=True, max_length=40)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE)
    token_hash = models.CharField(max_length=64, unique=True)
    revoked_at = models.DateTimeField(null=True)
