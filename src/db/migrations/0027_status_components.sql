-- What the status checks of the workers found last, per component: every instance serves status.json from it, so
-- two instances never disagree (an API-only instance cannot check workers, the gateway or the scanner itself).
CREATE TABLE "status_components" (
	"component" text PRIMARY KEY NOT NULL,
	"status" text NOT NULL,
	"detail" text NOT NULL,
	"checked_at" timestamp with time zone NOT NULL,
	CONSTRAINT "status_components_status_check" CHECK ("status" in ('operational', 'degraded', 'outage'))
);
