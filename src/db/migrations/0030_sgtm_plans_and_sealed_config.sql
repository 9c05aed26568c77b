-- Runtime `sgtm`: each plan bounds the tagging replicas a container may scale to and what each replica gets.
UPDATE "plans" SET "features" = "features" || '{"sgtm_max_replicas": 1, "sgtm_cpu_millis": 250, "sgtm_memory_mib": 256}'::jsonb WHERE "id" = 'free';
--> statement-breakpoint
UPDATE "plans" SET "features" = "features" || '{"sgtm_max_replicas": 3, "sgtm_cpu_millis": 500, "sgtm_memory_mib": 512}'::jsonb WHERE "id" = 'pro';
--> statement-breakpoint
UPDATE "plans" SET "features" = "features" || '{"sgtm_max_replicas": 6, "sgtm_cpu_millis": 500, "sgtm_memory_mib": 512}'::jsonb WHERE "id" = 'business';
--> statement-breakpoint
UPDATE "plans" SET "features" = "features" || '{"sgtm_max_replicas": 10, "sgtm_cpu_millis": 1000, "sgtm_memory_mib": 1024}'::jsonb WHERE "id" = 'agency';
--> statement-breakpoint
UPDATE "plans" SET "features" = "features" || '{"sgtm_max_replicas": 20, "sgtm_cpu_millis": 1000, "sgtm_memory_mib": 1024}'::jsonb WHERE "id" = 'partner';
--> statement-breakpoint
-- The container config string is sealed at rest from now on; the GTM container id it names is kept beside it in
-- clear, for the gateway's routes and the API. Rows written before keep their config in clear until next changed.
ALTER TABLE "containers" ADD COLUMN "gtm_container_id" text;
