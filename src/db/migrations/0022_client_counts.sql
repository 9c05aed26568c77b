-- Active client tenants per parent, kept by statement-level triggers on every insert, update and delete, so that
-- creating a client checks the plan limit on the parent's row (one locked row) instead of counting its clients. Per
-- statement, not per row: a bulk insert of clients updates each parent once.
ALTER TABLE "tenants" ADD COLUMN "client_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE "tenants" AS "parent" SET "client_count" = (
	SELECT count(*) FROM "tenants" AS "client" WHERE "client"."parent_id" = "parent"."id" AND "client"."status" = 'active'
);--> statement-breakpoint
CREATE FUNCTION "tenants_count_clients"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	-- The counts' own update (below) changes no status or parent.
	IF pg_trigger_depth() > 1 THEN
		RETURN NULL;
	END IF;
	IF TG_OP = 'INSERT' THEN
		UPDATE "tenants" SET "client_count" = "tenants"."client_count" + "delta"."n"
		FROM (SELECT "parent_id", count(*)::int AS "n" FROM "new_rows"
			WHERE "parent_id" IS NOT NULL AND "status" = 'active' GROUP BY "parent_id") AS "delta"
		WHERE "tenants"."id" = "delta"."parent_id";
	ELSIF TG_OP = 'DELETE' THEN
		UPDATE "tenants" SET "client_count" = "tenants"."client_count" - "delta"."n"
		FROM (SELECT "parent_id", count(*)::int AS "n" FROM "old_rows"
			WHERE "parent_id" IS NOT NULL AND "status" = 'active' GROUP BY "parent_id") AS "delta"
		WHERE "tenants"."id" = "delta"."parent_id";
	ELSE
		UPDATE "tenants" SET "client_count" = "tenants"."client_count" + "delta"."n"
		FROM (SELECT "parent_id", sum("change")::int AS "n" FROM (
				SELECT "parent_id", 1 AS "change" FROM "new_rows" WHERE "parent_id" IS NOT NULL AND "status" = 'active'
				UNION ALL
				SELECT "parent_id", -1 FROM "old_rows" WHERE "parent_id" IS NOT NULL AND "status" = 'active'
			) AS "changes" GROUP BY "parent_id" HAVING sum("change") <> 0) AS "delta"
		WHERE "tenants"."id" = "delta"."parent_id";
	END IF;
	RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "tenants_count_clients_insert" AFTER INSERT ON "tenants"
	REFERENCING NEW TABLE AS "new_rows" FOR EACH STATEMENT EXECUTE FUNCTION "tenants_count_clients"();--> statement-breakpoint
CREATE TRIGGER "tenants_count_clients_update" AFTER UPDATE ON "tenants"
	REFERENCING OLD TABLE AS "old_rows" NEW TABLE AS "new_rows" FOR EACH STATEMENT EXECUTE FUNCTION "tenants_count_clients"();--> statement-breakpoint
CREATE TRIGGER "tenants_count_clients_delete" AFTER DELETE ON "tenants"
	REFERENCING OLD TABLE AS "old_rows" FOR EACH STATEMENT EXECUTE FUNCTION "tenants_count_clients"();
