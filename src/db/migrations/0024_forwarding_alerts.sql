-- The forwarding losses (forwards failed for good, hits refused) already alerted per container and UTC day, and
-- when: a later check alerts again only for new losses, and at most once an hour.
CREATE TABLE "container_forwarding_alerts" (
	"container_id" text NOT NULL,
	"day" text NOT NULL,
	"losses_alerted" integer NOT NULL,
	"alerted_at" timestamp with time zone NOT NULL,
	CONSTRAINT "container_forwarding_alerts_pkey" PRIMARY KEY ("container_id", "day")
);
