-- Active client tenants per parent, kept by a trigger on every insert, status or parent change and delete, so that
-- creating a client checks the plan limit on the parent's row (one locked row) instead of counting its clients.
ALTER TABLE "tenants" ADD COLUMN "client_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE "tenants" AS "parent" SET "client_count" = (
	SELECT count(*) FROM "tenants" AS "client" WHERE "client"."parent_id" = "parent"."id" AND "client"."status" = 'active'
);--> statement-breakpoint
CREATE FUNCTION "tenants_count_clients"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP IN ('UPDATE', 'DELETE') AND OLD."parent_id" IS NOT NULL AND OLD."status" = 'active' THEN
		UPDATE "tenants" SET "client_count" = "client_count" - 1 WHERE "id" = OLD."parent_id";
	END IF;
	IF TG_OP IN ('INSERT', 'UPDATE') AND NEW."parent_id" IS NOT NULL AND NEW."status" = 'active' THEN
		UPDATE "tenants" SET "client_count" = "client_count" + 1 WHERE "id" = NEW."parent_id";
	END IF;
	RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "tenants_count_clients_insert" AFTER INSERT OR DELETE ON "tenants"
	FOR EACH ROW EXECUTE FUNCTION "tenants_count_clients"();--> statement-breakpoint
CREATE TRIGGER "tenants_count_clients_update" AFTER UPDATE OF "status", "parent_id" ON "tenants"
	FOR EACH ROW WHEN (OLD."status" IS DISTINCT FROM NEW."status" OR OLD."parent_id" IS DISTINCT FROM NEW."parent_id")
	EXECUTE FUNCTION "tenants_count_clients"();
