-- The audit chain apart from the events (issue 36): positions, salts, commits and macs move to a narrow table
-- that the checkpoint job inserts into, so an audit row is written once (the job used to rewrite every row,
-- ~1,170 WAL bytes an event through audit_log's nine indexes). The values move as they are.
CREATE TABLE "audit_chain" (
	"event_id" bigint PRIMARY KEY NOT NULL,
	"position" bigint NOT NULL,
	"organisation_id" integer,
	"salts" jsonb,
	"commits" jsonb,
	"mac" text
);
--> statement-breakpoint
CREATE TABLE "audit_chain_mark" (
	"id" integer PRIMARY KEY NOT NULL,
	"below" bigint NOT NULL,
	"candidate" bigint,
	"candidate_xmax" text,
	"addresses_cut_before" timestamp with time zone
);
--> statement-breakpoint
INSERT INTO "audit_chain" ("event_id", "position", "organisation_id", "salts", "commits", "mac")
  SELECT "id", "position", "organisation_id", "salts", "commits", "mac" FROM "audit_log" WHERE "position" IS NOT NULL;--> statement-breakpoint
-- The job starts after the last event chained with none unchained before it.
INSERT INTO "audit_chain_mark" ("id", "below")
  SELECT 1, coalesce((SELECT min("id") - 1 FROM "audit_log" WHERE "position" IS NULL), (SELECT max("id") FROM "audit_log"), 0);--> statement-breakpoint
DROP INDEX "audit_log_position_key";--> statement-breakpoint
DROP INDEX "audit_log_unpositioned_idx";--> statement-breakpoint
DROP INDEX "audit_log_org_position_idx";--> statement-breakpoint
CREATE UNIQUE INDEX "audit_chain_position_key" ON "audit_chain" USING btree ("position");--> statement-breakpoint
CREATE INDEX "audit_chain_org_position_idx" ON "audit_chain" USING btree ("organisation_id","position");--> statement-breakpoint
ALTER TABLE "audit_log" DROP COLUMN "position";--> statement-breakpoint
ALTER TABLE "audit_log" DROP COLUMN "salts";--> statement-breakpoint
ALTER TABLE "audit_log" DROP COLUMN "commits";--> statement-breakpoint
ALTER TABLE "audit_log" DROP COLUMN "mac";--> statement-breakpoint
-- Like the events: rows are only added, except by the product's maintenance transactions (erasure and cutting
-- delete salts, retention deletes rows), which say so (callproof.audit_maintenance, migration 0016).
CREATE TRIGGER audit_chain_no_update_delete BEFORE UPDATE OR DELETE ON audit_chain
  FOR EACH ROW EXECUTE FUNCTION audit_log_refuse_change();
--> statement-breakpoint
CREATE TRIGGER audit_chain_no_truncate BEFORE TRUNCATE ON audit_chain
  FOR EACH STATEMENT EXECUTE FUNCTION audit_log_refuse_change();
