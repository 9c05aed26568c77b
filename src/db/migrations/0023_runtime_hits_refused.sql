-- Hits the built-in runtime answered 503 because its forward queue was full: refused, never acknowledged.
ALTER TABLE "container_runtime_usage" ADD COLUMN "hits_refused" integer DEFAULT 0 NOT NULL;
